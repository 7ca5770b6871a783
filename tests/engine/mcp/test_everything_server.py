"""Against the MCP reference server `@modelcontextprotocol/server-everything` (npm, see everything.py).

Issue 25 §7, §9, §10 and §11, each as a user meets it: through `Dialog.run()` with the loopback LLM server
asking for the tool, or through the `@` attachment, with the test host answering as a person would.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, openai_stream, openai_tool_call
from visindigo.engine import Message, Role
from visindigo.engine.mcp import MCPManager
from visindigo.engine.mcp.answer_check import answer_problems
from visindigo.engine.mcp.elicitation import check_value, form_content, schema_fields
from visindigo.engine.mcp.host import ElicitationAnswer, SamplingDecision
from visindigo.engine.mcp.resources import attach

from .dialog_host import FormsOnlyHost, Host, center_with, run_tool
from .everything import everything_server


@pytest.fixture
async def host_manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    manager = MCPManager(tmp_path / "logs", startup_timeout=60.0, host=Host())
    try:
        yield manager
    finally:
        await manager.aclose()


async def call(
    llm_server: LLMServer, manager: MCPManager, everything_js: Path, tool: str, arguments: str = "{}"
) -> str:
    """The result the model gets when it calls server-everything's `tool` (allowed without asking)."""
    center = center_with(llm_server, manager, everything_server(everything_js, approval="allow"))
    _events, result = await run_tool(llm_server, center, f"ev__{tool}", arguments)
    return result


def host_of(manager: MCPManager) -> Host:
    assert isinstance(manager.host, Host)
    return manager.host


# --- §9: text blobs -----------------------------------------------------------------------------------------


async def test_a_text_blob_resource_is_read_as_text_when_attached(
    host_manager: MCPManager, everything_js: Path
) -> None:
    server = everything_server(everything_js)
    content = await host_manager.read_resource(server, "demo://resource/dynamic/blob/1")
    message = Message(Role.USER, "What does it say?")
    attach(message, content)
    # The reference server sends this resource as a base64 blob of type text/plain.
    assert re.match(
        r'<resource server="ev" uri="demo://resource/dynamic/blob/1">\n'
        r"Resource 1: This is a base64 blob created at [^\n]+\n</resource>\n\nWhat does it say\?$",
        message.content,
    ), message.content
    assert message.meta["resources"] == [{"server": "ev", "uri": "demo://resource/dynamic/blob/1"}]


async def test_a_text_blob_embedded_in_a_tool_result_reaches_the_model(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    arguments = '{"resourceType": "Blob", "resourceId": 2}'
    result = await call(llm_server, host_manager, everything_js, "get-resource-reference", arguments)
    text = json.loads(result)["content"]
    assert "[resource demo://resource/dynamic/blob/2 (text/plain)]\nResource 2: This is a base64 blob" in text
    assert "not shown" not in text


# --- §10: sampling parameters -------------------------------------------------------------------------------


async def test_sampling_sends_the_servers_temperature_and_limit_to_the_provider(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host_of(host_manager).sampling = SamplingDecision.ALLOW_ONCE
    center = center_with(llm_server, host_manager, everything_server(everything_js, approval="allow"))
    arguments = '{"prompt": "Name a colour", "maxTokens": 50}'
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "ev__trigger-sampling-request", [arguments]),
                      finish="tool_calls"),
        openai_stream(["Teal."]),
        openai_stream(["done"]),
    )  # fmt: skip
    dialog = center.create_dialog()
    dialog.model_id = "big-model"
    dialog.append_message(Role.USER, "go")
    _events = [event async for event in dialog.run()]
    [shown] = host_of(host_manager).sampled
    assert shown.temperature == 0.7 and shown.max_tokens == 50  # what the approval screen shows ...
    sampled = llm_server.requests[1].json
    assert sampled["temperature"] == 0.7 and sampled["max_tokens"] == 50  # ... is what the provider receives
    assert sampled["messages"][0] == {"role": "system", "content": "You are a helpful test server."}
    [tool_message] = [m for m in dialog.messages if m.role is Role.TOOL]
    assert '"text": "Teal."' in json.loads(tool_message.content)["content"]


# --- §11: elicitation answers are checked against the server's schema ---------------------------------------

VALID = {"name": "Ann Lee", "untitledMultipleSelectEnum": ["Guitar"], "titledMultipleSelectEnum": ["fish-2"],
         "email": "ann@example.org", "birthdate": "1990-02-01", "integer": 7}  # fmt: skip


def raw_result(tool_text: str) -> dict[str, object]:
    """The `Raw result:` the reference server appends: exactly what it received."""
    raw = tool_text.split("Raw result: ", 1)[1]
    document = json.loads(raw)
    assert isinstance(document, dict)
    return document


async def test_an_answer_that_breaks_the_schema_goes_back_to_the_host_and_is_not_sent(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host = host_of(host_manager)
    too_many = ["Guitar", "Piano", "Violin", "Drums"]  # maxItems 3
    wrong = {"name": 5, "untitledMultipleSelectEnum": too_many, "integer": 500, "email": "no-at-sign",
             "untitledSingleSelectEnum": "Gunther"}  # fmt: skip
    host.queued = [ElicitationAnswer("accept", wrong), ElicitationAnswer("accept", VALID)]
    result = await call(llm_server, host_manager, everything_js, "trigger-elicitation-request")
    first, second = host.elicited
    assert first.problem == "" and first.refused == {}
    assert second.refused == wrong and second.schema == first.schema
    assert second.problem.split("; ") == [  # in the form's order, each field by its title
        "String: expected text",
        "String with email format: not a valid email",
        "Integer: must be at most 100",
        "Untitled Single Select Enum: must be one of Monica, Rachel, Joey, Chandler, Ross, Phoebe",
        "Untitled Multiple Select Enum: choose at most 3",
    ]
    assert raw_result(json.loads(result)["content"]) == {"action": "accept", "content": VALID}  # only the valid one


async def test_a_host_that_keeps_answering_wrongly_cancels_and_sends_nothing(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host = host_of(host_manager)
    host.elicit_answer = ElicitationAnswer("accept", {"check": "yes"})  # no name (required), a text for a boolean
    result = await call(llm_server, host_manager, everything_js, "trigger-elicitation-request")
    assert len(host.elicited) == 3
    assert host.elicited[-1].problem == "String: an answer is required; Boolean: expected yes or no (true/false)"
    assert raw_result(json.loads(result)["content"]) == {"action": "cancel"}


async def test_the_form_itself_refuses_more_choices_than_the_schema_allows(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host = host_of(host_manager)
    host.elicit_answer = ElicitationAnswer("accept", VALID)
    await call(llm_server, host_manager, everything_js, "trigger-elicitation-request")
    schema = host.elicited[0].schema
    name = "untitledMultipleSelectEnum"
    too_many = check_value(schema, name, "Guitar, Piano, Violin, Drums")
    assert too_many == "Untitled Multiple Select Enum: choose at most 3."
    assert check_value(schema, name, "Guitar, Piano") is None
    values = {field.name: field.initial_value() for field in schema_fields(schema)}
    values["name"] = "Ann"
    assert answer_problems(schema, form_content(schema, values)) == []  # the form's own answer passes the check


# --- §7: a -32042 "URL elicitation required" error ----------------------------------------------------------

URL_ARGUMENTS = '{"url": "https://example.com/sign", "errorPath": true}'
PREREQUISITE = "https://modelcontextprotocol.io"


async def test_a_url_elicitation_error_shows_the_page_and_the_call_is_made_again_once_the_user_is_done(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host = host_of(host_manager)
    host.elicit_answer = ElicitationAnswer("accept")
    result = await call(llm_server, host_manager, everything_js, "trigger-url-elicitation", URL_ARGUMENTS)
    prerequisite, own = host.elicited
    # The error's page: shown to the user as a URL elicitation that blocks the tool ...
    assert prerequisite.mode == "url" and prerequisite.url == PREREQUISITE
    assert prerequisite.required_by == "trigger-url-elicitation"
    assert prerequisite.message == "Open this link to satisfy the prerequisite, then retry the request."
    assert prerequisite.elicitation_id and prerequisite.server == "ev"
    # ... then the same call again, which the server now lets through to its own elicitation/create.
    assert (own.mode, own.url, own.required_by) == ("url", "https://example.com/sign", "")
    assert "User completed the URL elicitation flow" in json.loads(result)["content"]


async def test_a_declined_url_elicitation_tells_the_model_the_page_and_does_not_run_the_tool(
    llm_server: LLMServer, host_manager: MCPManager, everything_js: Path
) -> None:
    host = host_of(host_manager)
    host.elicit_answer = ElicitationAnswer("decline")
    result = await call(llm_server, host_manager, everything_js, "trigger-url-elicitation", URL_ARGUMENTS)
    assert len(host.elicited) == 1
    assert json.loads(result) == {"isError": True, "error": (
        f"MCP server 'ev' needs the user to open {PREREQUISITE} (Open this link to satisfy the prerequisite, then "
        "retry the request.) before tool 'trigger-url-elicitation' can run; the user declined, so the tool was not run"
    )}  # fmt: skip


async def test_a_host_that_cannot_show_pages_gets_the_model_the_address(
    llm_server: LLMServer, tmp_path: Path, everything_js: Path
) -> None:
    host = FormsOnlyHost(ElicitationAnswer("accept"))
    manager = MCPManager(tmp_path / "logs", startup_timeout=60.0, host=host)
    try:
        result = await call(llm_server, manager, everything_js, "trigger-url-elicitation", URL_ARGUMENTS)
    finally:
        await manager.aclose()
    assert host.elicited == []
    error = json.loads(result)["error"]
    assert error == (
        f"MCP server 'ev' needs the user to open {PREREQUISITE} (Open this link to satisfy the prerequisite, then "
        "retry the request.) in a browser before tool 'trigger-url-elicitation' can run; ask the user to open it and "
        "finish there, then try again"
    )
