"""`Dialog.run()` against the loopback LLM server, with tools from real MCP servers over stdio."""

from __future__ import annotations

import json
import re

from tests.llm_server import LLMServer, openai_stream, openai_tool_call
from visindigo.engine import (
    Capability,
    Center,
    MCPServer,
    ModelInfo,
    Provider,
    Role,
    RunFailed,
    RunFinished,
    ToolCallFinished,
    ToolCallStarted,
)
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.events import Event
from visindigo.engine.mcp import MCPManager

from .helpers import child_pids, time_server, toolbox


def make_center(llm_server: LLMServer, manager: MCPManager) -> Center:
    center = Center()
    model = ModelInfo("m", capabilities=Capability.TEXT | Capability.TOOLS)
    center.add_provider(
        Provider("loop", kind="openai", base_url=llm_server.openai_url, api_key="sk-test", models=[model])
    )
    center.tool_source = manager
    return center


async def run(center: Center, dialog_id: str, asked: list[ToolCallRequest] | None = None) -> list[Event]:
    async def approve(request: ToolCallRequest) -> Approval:
        if asked is not None:
            asked.append(request)
        return Approval.ALLOW_ONCE

    dialog = center.get_dialog(dialog_id)
    assert dialog is not None
    return [event async for event in dialog.run(approve=approve)]


async def test_the_model_calls_an_mcp_tool_and_the_answer_arrives(llm_server: LLMServer, manager: MCPManager) -> None:
    llm_server.queue(
        openai_stream(
            tool_calls=openai_tool_call("call_1", "time__get_current_time", ['{"timezone"', ': "Asia/Tokyo"}']),
            finish="tool_calls",
        ),
        openai_stream(["In Tokyo it is ", "now evening."]),
    )
    center = make_center(llm_server, manager)
    center.add_mcp(time_server())
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "What time is it in Tokyo?")
    asked: list[ToolCallRequest] = []

    events = await run(center, dialog.id, asked)

    assert isinstance(events[-1], RunFinished), events
    assert [r.function_id for r in asked] == ["time__get_current_time"]  # MCP tools ask first
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.call_id, e.function_id, e.arguments) for e in started] == [
        ("call_1", "time__get_current_time", {"timezone": "Asia/Tokyo"})
    ]
    assert len(finished) == 1 and not finished[0].is_error

    first, second = llm_server.requests
    [tool] = [t for t in first.json["tools"] if t["function"]["name"] == "time__get_current_time"]
    assert tool["function"]["parameters"]["required"] == ["timezone"]
    tool_message = second.json["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    result = json.loads(tool_message["content"])
    assert result["timezone"] == "Asia/Tokyo" and re.search(r"\+09:00$", result["datetime"])

    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    assert dialog.last_message.content == "In Tokyo it is now evening."


async def test_a_tool_error_goes_back_to_the_model_as_text(llm_server: LLMServer, manager: MCPManager) -> None:
    llm_server.queue(
        openai_stream(
            tool_calls=openai_tool_call("c1", "time__get_current_time", ['{"timezone": "Mars/Base"}']),
            finish="tool_calls",
        ),
        openai_stream(["That is not a real timezone."]),
    )
    center = make_center(llm_server, manager)
    center.add_mcp(time_server())
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "Time on Mars?")
    events = await run(center, dialog.id)
    assert isinstance(events[-1], RunFinished)
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.is_error
    sent = json.loads(llm_server.requests[1].json["messages"][-1]["content"])
    assert sent["isError"] is True and "Invalid timezone" in sent["error"]


async def test_a_crash_mid_call_is_reported_to_the_model_and_the_next_run_works(
    llm_server: LLMServer, manager: MCPManager
) -> None:
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "box__crash", ["{}"]), finish="tool_calls"),
        openai_stream(["The tool crashed."]),
        openai_stream(tool_calls=openai_tool_call("c2", "box__echo", ['{"text": "again"}']), finish="tool_calls"),
        openai_stream(["It said again."]),
    )
    center = make_center(llm_server, manager)
    center.add_mcp(toolbox("box", approval="allow"))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "crash it")
    assert isinstance((await run(center, dialog.id))[-1], RunFinished)
    crashed = json.loads(llm_server.requests[1].json["messages"][-1]["content"])
    assert "MCP server 'box' stopped during tool 'crash'" in crashed["error"]

    dialog.append_message(Role.USER, "try echo")
    assert isinstance((await run(center, dialog.id))[-1], RunFinished)
    assert llm_server.requests[3].json["messages"][-1]["content"] == '{"content":"again"}'
    assert dialog.last_message.content == "It said again."


async def test_a_server_that_cannot_start_fails_the_run_clearly_and_the_dialog_stays_usable(
    llm_server: LLMServer, manager: MCPManager
) -> None:
    llm_server.queue(openai_stream(["Hello without tools."]))
    center = make_center(llm_server, manager)
    dialog = center.create_dialog()
    dialog.add_mcp(MCPServer("broken", command="visindigo-missing-command"))
    dialog.append_message(Role.USER, "hi")

    events = await run(center, dialog.id)
    [failure] = [e for e in events if isinstance(e, RunFailed)]
    assert "MCP server 'broken' could not start: the command 'visindigo-missing-command' was not found" in (
        failure.message
    )
    assert llm_server.requests == [] and not dialog.is_running
    assert [m.role for m in dialog.messages] == [Role.USER]

    dialog.remove_mcp("broken")
    assert isinstance((await run(center, dialog.id))[-1], RunFinished)
    assert dialog.last_message.content == "Hello without tools."


async def test_servers_work_without_installing_a_manager(llm_server: LLMServer) -> None:
    """A script that only calls `add_mcp` gets the tools: the run makes the manager, `aclose` stops it."""
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "box__echo", ['{"text": "hi"}']), finish="tool_calls"),
        openai_stream(["It said hi."]),
    )
    center = Center()
    model = ModelInfo("m", capabilities=Capability.TEXT | Capability.TOOLS)
    center.add_provider(Provider("loop", kind="openai", base_url=llm_server.openai_url, api_key="k", models=[model]))
    dialog = center.create_dialog()
    dialog.add_mcp(toolbox("box", approval="allow"))  # a dialog's own server, none in the Center
    dialog.append_message(Role.USER, "echo hi")
    before = child_pids()
    try:
        events = [event async for event in dialog.run()]
        assert isinstance(events[-1], RunFinished), events
        assert isinstance(center.tool_source, MCPManager)
        assert llm_server.requests[1].json["messages"][-1]["content"] == '{"content":"hi"}'
        assert len(child_pids() - before) == 1
    finally:
        await center.aclose()
    assert child_pids() - before == set()


async def test_a_call_that_never_answers_times_out_and_the_dialog_goes_on(
    llm_server: LLMServer, manager: MCPManager
) -> None:
    llm_server.queue(
        openai_stream(tool_calls=openai_tool_call("c1", "box__hang", ["{}"]), finish="tool_calls"),
        openai_stream(["The tool did not answer."]),
        openai_stream(tool_calls=openai_tool_call("c2", "box__echo", ['{"text": "alive"}']), finish="tool_calls"),
        openai_stream(["It said alive."]),
    )
    center = make_center(llm_server, manager)
    center.add_mcp(toolbox("box", approval="allow", timeout=1.0))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hang")
    events = await run(center, dialog.id)
    assert isinstance(events[-1], RunFinished)
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.is_error and 0.9 <= finished.duration < 5
    sent = json.loads(llm_server.requests[1].json["messages"][-1]["content"])
    assert sent["isError"] is True and "did not answer tool 'hang' within 1 s" in sent["error"]

    dialog.append_message(Role.USER, "echo")
    assert isinstance((await run(center, dialog.id))[-1], RunFinished)
    assert llm_server.requests[3].json["messages"][-1]["content"] == '{"content":"alive"}'
    assert dialog.last_message.content == "It said alive."
