"""The client side of MCP against `servers/features.py` (built with the SDK) over stdio, through `Dialog.run()`.

Each feature is driven the way a user meets it: the loopback LLM server asks for the tool, the server asks the
client (elicitation, sampling, roots) or reports progress, and the test host answers as a person would.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, anthropic_stream, openai_stream, openai_tool_call
from visindigo.engine import (
    Capability,
    Center,
    MCPServer,
    Message,
    ModelInfo,
    Provider,
    Role,
    RunCancelled,
    RunFinished,
    ToolCallFinished,
    ToolCallProgress,
    UsageReported,
)
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.events import Event
from visindigo.engine.mcp import MCPManager
from visindigo.engine.mcp.host import (
    ElicitationAnswer,
    ElicitationRequest,
    SamplingDecision,
)
from visindigo.engine.mcp.resources import attach, template_variables

from .dialog_host import Host, center_with, run_tool
from .helpers import until

FEATURES = Path(__file__).parent / "servers" / "features.py"


def features(name: str = "f", **settings: object) -> MCPServer:
    settings.setdefault("timeout", 5.0)
    settings.setdefault("approval", "allow")
    return MCPServer(name, command=sys.executable, args=(str(FEATURES),), **settings)  # type: ignore[arg-type]


@pytest.fixture
async def host_manager(tmp_path: Path):  # type: ignore[no-untyped-def]
    manager = MCPManager(tmp_path / "logs", startup_timeout=20.0, host=Host())
    try:
        yield manager
    finally:
        await manager.aclose()


async def test_capabilities_are_declared_only_for_what_a_host_answers(llm_server: LLMServer, tmp_path: Path) -> None:
    without = MCPManager(tmp_path, startup_timeout=20.0)
    try:
        center = center_with(llm_server, without, features())
        _events, declared = await run_tool(llm_server, center, "f__capabilities")
        assert json.loads(json.loads(declared)["content"]) == {"roots": {"listChanged": True}}
        _events, result = await run_tool(llm_server, center, "f__ask")
        # No host: elicitation is not declared, so the server's request is refused by the protocol, not answered.
        assert "isError" in result and "elicit" in result.lower()
        _events, roots = await run_tool(llm_server, center, "f__roots")
        assert Path.cwd().as_uri() in json.loads(roots)["content"]
    finally:
        await without.aclose()


async def test_elicitation_form_shows_the_schema_and_the_answer_reaches_the_tool(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    host.elicit_answer = ElicitationAnswer("accept", {"name": "Ann", "age": 30, "subscribe": True, "colour": "red"})
    center = center_with(llm_server, host_manager, features())
    _events, declared = await run_tool(llm_server, center, "f__capabilities")
    assert json.loads(json.loads(declared)["content"]) == {
        "roots": {"listChanged": True},
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
    }
    _events, result = await run_tool(llm_server, center, "f__ask")
    assert json.loads(result) == {"content": "hello Ann, 30, subscribe=True, red"}
    [asked] = host.elicited
    assert asked.server == "f" and asked.message == "Who are you?" and asked.mode == "form"
    assert asked.schema["required"] == ["name", "age"]
    assert asked.schema["properties"]["colour"]["enum"] == ["red", "green", "blue"]


async def test_declining_and_url_mode(llm_server: LLMServer, host_manager: MCPManager) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    center = center_with(llm_server, host_manager, features())
    _events, result = await run_tool(llm_server, center, "f__ask")
    assert json.loads(result) == {"content": "no answer: decline"}
    host.elicit_answer = ElicitationAnswer("accept")
    _events, result = await run_tool(llm_server, center, "f__visit")
    assert json.loads(result) == {"content": "visit: accept"}
    assert host.elicited[-1].mode == "url" and host.elicited[-1].url == "https://example.invalid/sign"


async def test_sampling_is_shown_first_and_a_denial_is_a_protocol_error(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    center = center_with(llm_server, host_manager, features())
    _events, result = await run_tool(llm_server, center, "f__summarise", '{"text": "long story"}')
    [shown] = host.sampled
    assert shown.server == "f" and shown.max_tokens == 100 and shown.system_prompt == "Be brief."
    assert shown.messages[0].text == "Summarise: long story" and shown.model_hints == ("small",)
    assert shown.model_id == "small-model"  # the hint picked the model, from the dialog's provider
    assert "declined" in json.loads(result)["error"]
    assert len(llm_server.requests) == 2  # nothing was sampled


async def test_approved_sampling_runs_on_the_hinted_model_and_counts_usage(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    host.sampling = SamplingDecision.ALLOW_FOR_SERVER
    center = center_with(llm_server, host_manager, features())
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "f__summarise", ['{"text": "a"}']), finish="tool_calls"),
        openai_stream(["A short summary."], usage=(7, 3)),
        openai_stream(["done"]),
    )
    dialog = center.create_dialog()
    dialog.model_id = "big-model"
    dialog.append_message(Role.USER, "go")
    events = [event async for event in dialog.run()]
    [tool_message] = [m for m in dialog.messages if m.role is Role.TOOL]
    assert json.loads(tool_message.content) == {"content": "[small-model] A short summary."}
    sampled = llm_server.requests[1].json
    assert sampled["model"] == "small-model" and sampled["messages"][0] == {"role": "system", "content": "Be brief."}
    assert any(isinstance(e, UsageReported) and e.input_tokens == 7 for e in events)
    # "always for this server": the second request is not shown again.
    await run_tool(llm_server, center, "f__summarise", '{"text": "b"}')
    assert len(host.sampled) == 1


async def test_hostile_pages_of_a_url_elicitation_error_are_never_shown(
    llm_server: LLMServer, host_manager: MCPManager, tmp_path: Path
) -> None:
    """Issue 25 §7: of a -32042 error's pages only a plain http(s) link is shown, its message cleaned."""
    host = host_manager.host
    assert isinstance(host, Host)
    host.elicit_answer = ElicitationAnswer("accept")
    center = center_with(llm_server, host_manager, features())
    _events, result = await run_tool(llm_server, center, "f__gated", '{"key": "a"}')
    [shown] = host.elicited  # not javascript:, not the link with an OSC 52 clipboard write inside
    assert (shown.url, shown.message, shown.elicitation_id) == ("https://sign.example/go?x=1", "Sign in please", "good")
    assert shown.required_by == "gated"
    assert json.loads(result) == {"content": "gate a open"}  # made again once the user was done
    without = MCPManager(tmp_path / "bare", startup_timeout=20.0)  # no host: the model is told the page
    try:
        _events, result = await run_tool(llm_server, center_with(llm_server, without, features()), "f__gated")
    finally:
        await without.aclose()
    assert json.loads(result)["error"] == (
        "MCP server 'f' needs the user to open https://sign.example/go?x=1 (Sign in please) in a browser before "
        "tool 'gated' can run; ask the user to open it and finish there, then try again"
    )


async def test_a_server_that_asks_for_its_page_again_and_again_is_followed_three_times(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    host.elicit_answer = ElicitationAnswer("accept")
    center = center_with(llm_server, host_manager, features())
    _events, result = await run_tool(llm_server, center, "f__gated_forever")
    assert [page.url for page in host.elicited] == ["https://loop.example/"] * 3
    assert json.loads(result)["error"].startswith("MCP server 'f' needs the user to open https://loop.example/ (again)")


async def test_a_host_that_raises_not_implemented_for_pages_gets_the_model_the_address(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    class FormsOnly(Host):
        async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
            if request.mode == "url":
                raise NotImplementedError
            return await super().elicit(request)

    manager = MCPManager(tmp_path / "logs", startup_timeout=20.0, host=FormsOnly())
    try:
        center = center_with(llm_server, manager, features())
        _events, gated = await run_tool(llm_server, center, "f__gated")
        _events, visit = await run_tool(llm_server, center, "f__visit")  # elicitation/create in URL mode
    finally:
        await manager.aclose()
    assert "open https://sign.example/go?x=1 (Sign in please) in a browser" in json.loads(gated)["error"]
    assert "cannot show a page to open (https://example.invalid/sign)" in json.loads(visit)["error"]


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
async def test_sampling_sends_the_servers_temperature_and_stop_sequences(
    llm_server: LLMServer, host_manager: MCPManager, wire: str
) -> None:
    """Issue 25 §10: the server's temperature and stop sequences reach the provider, on either wire."""
    host = host_manager.host
    assert isinstance(host, Host)
    host.sampling = SamplingDecision.ALLOW_ONCE
    center = center_with(llm_server, host_manager, features())
    if wire == "anthropic":
        models = [ModelInfo("small-claude", capabilities=Capability.TEXT | Capability.TOOLS)]
        center.add_provider(Provider("claude", kind="anthropic", base_url=llm_server.anthropic_url, api_key="sk-a",
                                     models=models))  # fmt: skip
    arguments = '{"text": "a", "max_tokens": 40, "temperature": 0.2, "stop": ["END", "###"]}'
    first = openai_stream(tool_calls=openai_tool_call("c1", "f__summarise", [arguments]), finish="tool_calls")
    if wire == "anthropic":
        first = anthropic_stream(tool_uses=[("c1", "f__summarise", [arguments])], stop_reason="tool_use")
        sampled_reply, last = anthropic_stream(["Short."]), anthropic_stream(["done"])
    else:
        sampled_reply, last = openai_stream(["Short."]), openai_stream(["done"])
    llm_server.queue(first, sampled_reply, last)
    dialog = center.create_dialog()
    if wire == "anthropic":
        dialog.provider_id, dialog.model_id = "claude", "small-claude"
    else:
        dialog.model_id = "big-model"
    dialog.append_message(Role.USER, "go")
    _events = [event async for event in dialog.run()]
    [shown] = host.sampled
    assert shown.temperature == 0.2 and shown.stop_sequences == ("END", "###")
    sampled = llm_server.requests[1].json
    assert sampled["max_tokens"] == 40 and sampled["temperature"] == 0.2
    assert sampled["stop_sequences" if wire == "anthropic" else "stop"] == ["END", "###"]
    [tool_message] = [m for m in dialog.messages if m.role is Role.TOOL]
    assert json.loads(tool_message.content)["content"].endswith("Short.")


async def test_a_sampling_temperature_no_model_takes_is_refused_before_the_user_is_asked(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    host.sampling = SamplingDecision.ALLOW_ONCE
    center = center_with(llm_server, host_manager, features())
    _events, result = await run_tool(llm_server, center, "f__summarise", '{"text": "a", "temperature": 7}')
    assert host.sampled == [] and len(llm_server.requests) == 2  # not shown, not sent
    assert "temperature must be between 0 and 2, not 7.0" in json.loads(result)["error"]


async def test_progress_reaches_the_run_and_keeps_a_long_call_alive(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    # 6 steps of 0.8 s = 4.8 s, with a 3 s timeout (which also bounds the handshake): progress keeps it alive.
    center = center_with(llm_server, host_manager, features(timeout=3.0))
    events, result = await run_tool(llm_server, center, "f__slow", '{"steps": 6, "delay": 0.8}')
    assert json.loads(result) == {"content": "done after 6 steps"}
    progress = [e for e in events if isinstance(e, ToolCallProgress)]
    assert [p.progress for p in progress] == [1, 2, 3, 4, 5, 6]
    assert progress[0].total == 6 and progress[0].message == "step 1 of 6" and progress[0].call_id == "c1"
    finished = next(i for i, e in enumerate(events) if isinstance(e, ToolCallFinished))
    assert events.index(progress[-1]) < finished  # yielded live, before the call ended


async def test_cancelling_a_call_sends_notifications_cancelled(
    llm_server: LLMServer, host_manager: MCPManager, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    center = center_with(llm_server, host_manager, features(env={"FEATURES_CANCEL_FILE": str(marker)}, timeout=60))
    llm_server.queue(openai_stream(tool_calls=openai_tool_call("c1", "f__sleepy", ["{}"]), finish="tool_calls"))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "go")
    events: list[Event] = []

    async def consume() -> None:
        async for event in dialog.run():
            events.append(event)

    task = asyncio.create_task(consume())
    for _ in range(200):
        await asyncio.sleep(0.05)
        if any(type(e).__name__ == "ToolCallStarted" for e in events):
            break
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await until(lambda: marker.exists())
    assert marker.read_text() == "cancelled"  # the server's handler was interrupted by notifications/cancelled
    assert "cancelled" in dialog.messages[-1].content and dialog.messages[-1].role is Role.TOOL
    assert any(isinstance(e, RunCancelled) for e in events) or not dialog.is_running
    # the server is still usable afterwards
    _events, result = await run_tool(llm_server, center, "f__peek")
    assert json.loads(result) == {"result": "peeked"}


async def test_annotations_tasks_instructions_and_read_only_approval(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    center = center_with(llm_server, host_manager, features(approval="read_only"))
    functions = {f.id: f for f in await host_manager.functions_for(center.mcp_servers)}
    assert "f__task_only" not in functions  # needs protocol tasks: not offered
    assert host_manager.status("f").task_only_tools == ("task_only",)
    peek, wipe = functions["f__peek"], functions["f__wipe"]
    assert peek.name == "f/Peek at things"
    assert not peek.requires_approval and wipe.requires_approval  # destructive tools still ask
    asked: list[ToolCallRequest] = []

    async def approve(request: ToolCallRequest) -> Approval:
        asked.append(request)
        return Approval.DENY

    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "f__wipe", ["{}"]), finish="tool_calls"),
        openai_stream(["ok"]),
    )
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "go")
    [e async for e in dialog.run(approve=approve)]
    assert asked[0].hints == ("destructive", "open world")
    system = llm_server.requests[0].json["messages"][0]
    assert system["role"] == "system" and "Call peek before wipe." in system["content"]


async def test_a_result_that_breaks_its_output_schema_is_reported_and_the_server_stays(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    center = center_with(llm_server, host_manager, features())
    events, result = await run_tool(llm_server, center, "f__bad_output")
    assert "does not match the tool's own output schema" in json.loads(result)["error"]
    assert isinstance(events[-1], RunFinished)
    _events, result = await run_tool(llm_server, center, "f__peek")
    assert json.loads(result) == {"result": "peeked"}


async def test_resources_templates_completion_and_subscriptions(
    llm_server: LLMServer, host_manager: MCPManager, tmp_path: Path
) -> None:
    server = features()
    center_with(llm_server, host_manager, server)
    listed = {r.uri: r for r in await host_manager.list_resources([server])}
    assert listed["note://hello"].description == "A greeting" and listed["note://{name}"].template
    assert template_variables("note://{name}") == ["name"]
    text = await host_manager.read_resource(server, "note://hello")
    image = await host_manager.read_resource(server, "pic://dot")
    message = Message(Role.USER, "What does it say?")
    attach(message, text)
    attach(message, image)
    assert '<resource server="f" uri="note://hello">\nHello from a resource\n</resource>' in message.content
    assert message.images[0].mime_type == "image/png"
    assert message.meta["resources"] == [{"server": "f", "uri": "note://hello"}, {"server": "f", "uri": "pic://dot"}]
    assert Message.from_json(message.to_json()).meta["resources"] == message.meta["resources"]
    stored = Center.open(tmp_path / "home")  # and the store keeps the attachments with the message
    try:
        dialog = stored.create_dialog()
        dialog.append_message(message)
        dialog_id = dialog.id
    finally:
        stored.close()
    reopened = Center.open(tmp_path / "home")
    try:
        again = reopened.get_dialog(dialog_id)
        assert again is not None and again.messages[0].meta["resources"] == message.meta["resources"]
        assert again.messages[0].images[0].mime_type == "image/png"
    finally:
        reopened.close()
    text_only = Message(Role.USER, "and now?")
    attach(text_only, image, images=False)  # a model without images gets the image named, not sent
    assert text_only.images == []
    assert '<resource server="f" uri="pic://dot">[image/png; the model takes no images, not shown]' in text_only.content
    assert await host_manager.complete(server, "prompt", "greet", "person", "al") == ["alice", "albert"]
    updated: list[str] = []
    assert await host_manager.subscribe_resource(server, "note://live", updated.append)
    functions = {f.id: f for f in await host_manager.functions_for([server])}
    await functions["f__touch"].invoke_async({"text": "version 2"})
    await until(lambda: updated)
    assert updated == ["note://live"]
    assert (await host_manager.read_resource(server, "note://live")).texts[0][1] == "version 2"


async def test_misbehaving_servers_get_a_clear_answer_and_the_dialog_goes_on(
    llm_server: LLMServer, host_manager: MCPManager
) -> None:
    host = host_manager.host
    assert isinstance(host, Host)
    center = center_with(llm_server, host_manager, features())
    # A nested schema cannot be a form: the server is told why, the user is not asked.
    _events, result = await run_tool(llm_server, center, "f__ask_nested")
    assert "cannot be shown as a form" in json.loads(result)["content"] and host.elicited == []
    # Progress after the answer is ignored (and logged), not shown on a finished block.
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "f__late_progress", ["{}"]), finish="tool_calls"),
        openai_stream(["ok"]),
    )
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "go")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    [e async for e in dialog.run()]
    assert json.loads(dialog.messages[2].content) == {"content": "answered early"}
    await asyncio.sleep(0.8)  # the server's three late notifications have been sent by now
    assert not [e for e in heard if isinstance(e, ToolCallProgress)]
    # A sampling request for a huge limit is shown with the limit the client will use.
    _events, result = await run_tool(llm_server, center, "f__summarise", '{"text": "x", "max_tokens": 10000000}')
    from visindigo.engine.mcp.client_side import capped_tokens

    assert capped_tokens(host.sampled[-1]) == (16_384, True)
    # and the dialog still works
    events, result = await run_tool(llm_server, center, "f__peek")
    assert json.loads(result) == {"result": "peeked"} and isinstance(events[-1], RunFinished)


async def test_announced_tools_are_listed_at_once_and_logs_keep_the_chosen_level(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    manager = MCPManager(tmp_path / "logs", startup_timeout=20.0, list_refresh=3600.0)  # no polling
    try:
        server = features(log_level="info")
        functions = {f.id: f for f in await manager.functions_for([server])}
        await functions["f__grow"].invoke_async({"name": "sprout"})
        await until(lambda: any(tool.name == "sprout" for tool in manager.status("f").tools))
        assert "f__sprout" in {f.id for f in await manager.functions_for([server])}
        await functions["f__chatty"].invoke_async({})
        await asyncio.sleep(0.3)
        log = Path(manager.status("f").log_path or "").read_text(encoding="utf-8")
        assert "[info] chatty: a info message" in log and "[error] chatty: a error message" in log
        assert "a debug message" not in log
    finally:
        await manager.aclose()


async def test_roots_are_the_start_folder_and_the_servers_folders(
    llm_server: LLMServer, host_manager: MCPManager, tmp_path: Path
) -> None:
    extra = tmp_path / "project"
    extra.mkdir()
    center = center_with(llm_server, host_manager, features(roots=(str(extra),)))
    _events, result = await run_tool(llm_server, center, "f__roots")
    assert json.loads(result)["content"].splitlines() == [Path.cwd().as_uri(), extra.as_uri()]
    await host_manager.set_start_folder(str(tmp_path))  # sends notifications/roots/list_changed
    _events, result = await run_tool(llm_server, center, "f__roots")
    assert json.loads(result)["content"].splitlines() == [tmp_path.as_uri(), extra.as_uri()]


async def test_a_2026_connection_follows_changes_on_a_listen_stream(tmp_path: Path) -> None:
    """`protocol = "auto"`: the SDK negotiates 2026-07-28, where changes come only on subscriptions/listen."""
    manager = MCPManager(tmp_path / "logs", startup_timeout=20.0, list_refresh=3600.0)
    try:
        server = features(protocol="auto")
        functions = {f.id: f for f in await manager.functions_for([server])}
        assert manager.status("f").protocol_version == "2026-07-28"
        await functions["f__grow"].invoke_async({"name": "sprout"})
        await until(lambda: any(tool.name == "sprout" for tool in manager.status("f").tools))
        assert "sprout" in {tool.name for tool in manager.status("f").tools}
        updated: list[str] = []
        assert await manager.subscribe_resource(server, "note://live", updated.append)
        await asyncio.sleep(0.5)  # the listen stream is reopened with the new filter
        await functions["f__touch"].invoke_async({"text": "version 3"})
        await until(lambda: updated)
        assert updated == ["note://live"]
        # and what 2026 takes from the handshake era: server requests mid-call fail with a clear message
        result = await functions["f__roots"].invoke_async({})
        assert result["isError"] and "back-channel" in result["error"]
    finally:
        await manager.aclose()
