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
from visindigo.engine.mcp.host import SamplingDecision
from visindigo.engine.mcp.resources import attach

from .dialog_host import Host, center_with, run_tool
from .everything import everything_server


@pytest.fixture
async def host_manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    manager = MCPManager(tmp_path / "logs", startup_timeout=60.0, host=Host())
    try:
        yield manager
    finally:
        await manager.aclose()


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
    center = center_with(llm_server, host_manager, everything_server(everything_js, approval="allow"))
    _events, result = await run_tool(
        llm_server, center, "ev__get-resource-reference", '{"resourceType": "Blob", "resourceId": 2}'
    )
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
