"""Dialog.run() over the scripted provider: event order, tools, approval, failures, cancel, the one-run rule."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    Event,
    Function,
    MCPServer,
    Message,
    MessageAppended,
    ModelInfo,
    Role,
    RunCancelled,
    RunFailed,
    RunFinished,
    Skill,
    StreamBegan,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
)
from visindigo.engine.approval import DENIED_RESULT, Approval, ToolCallRequest
from visindigo.engine.commands import command
from visindigo.engine.message import Image
from visindigo.engine.providers import (
    ChatRequest,
    FinishPart,
    Pause,
    ProviderError,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    UsagePart,
    scripted_provider,
    text_turn,
)
from visindigo.engine.run_loop import ALREADY_RUNNING, CANCELLED_RESULT


@command()
def add(a: int, b: int) -> dict[str, int]:
    """Add two integers."""
    return {"sum": a + b}


@command(dangerous=True)
def delete_file(path: str) -> str:
    """Delete a file (needs approval)."""
    return f"deleted {path}"


@command()
async def slow(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "slept"


def make_dialog(script: Any, **kwargs: Any) -> tuple[Center, Dialog, Any]:
    center = Center()
    provider = scripted_provider(script, **kwargs)
    center.add_provider(provider)
    dialog = center.create_dialog()
    return center, dialog, provider.adapter


async def collect(dialog: Dialog, **kwargs: Any) -> list[Event]:
    return [event async for event in dialog.run(**kwargs)]


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


async def test_a_plain_answer_emits_the_spec_events_in_order_to_iterator_and_listeners() -> None:
    _, dialog, _ = make_dialog(
        [[ReasoningPart("think"), TextPart("Hel"), TextPart("lo"), UsagePart(5, 2), FinishPart("stop")]]
    )
    dialog.append_message(Role.USER, "hi")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    events = await collect(dialog)
    assert events == [
        StreamBegan(),
        StreamReasoning("think"),
        StreamDelta("Hel"),
        StreamDelta("lo"),
        UsageReported(5, 2, 0, 0),
        MessageAppended(1),
        StreamEnded("Hello"),
        RunFinished(),
    ]
    assert heard == events
    answer = dialog.message_at(1)
    assert (answer.role, answer.content, answer.reasoning) == (Role.ASSISTANT, "Hello", "think")
    assert answer.meta["provider_id"] == "scripted"
    assert answer.meta["model_id"] == "scripted-model"
    assert answer.meta["usage"]["input_tokens"] == 5
    assert answer.meta["finish_reason"] == "stop"
    assert "status" not in answer.meta
    assert not dialog.is_running and not dialog.is_streaming


async def test_tool_calls_run_in_order_and_their_results_go_back_with_the_exact_ids() -> None:
    _, dialog, adapter = make_dialog(
        [
            [
                TextPart("Adding."),
                ToolCallPart("call_1", "add", '{"a": 1, "b": 2}'),
                ToolCallPart("call_2", "add", '{"a": 10, "b": 20}'),
                FinishPart("tool_calls"),
            ],
            text_turn("3 and 30"),
        ]
    )
    dialog.add_function(add)
    dialog.append_message(Role.USER, "add things")
    events = await collect(dialog)
    assert kinds(events) == [
        "StreamBegan",
        "StreamDelta",
        "MessageAppended",
        "StreamEnded",
        "ToolCallStarted",
        "ToolCallFinished",
        "MessageAppended",
        "ToolCallStarted",
        "ToolCallFinished",
        "MessageAppended",
        "StreamBegan",
        "StreamDelta",
        "MessageAppended",
        "StreamEnded",
        "RunFinished",
    ]
    assert events[4] == ToolCallStarted("call_1", "add", {"a": 1, "b": 2})
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(f.call_id, f.result, f.is_error) for f in finished] == [
        ("call_1", '{"sum":3}', False),
        ("call_2", '{"sum":30}', False),
    ]
    messages = dialog.messages
    assert [m.role for m in messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL, Role.ASSISTANT]
    calls = messages[1].parsed_tool_calls()
    assert [(c["id"], c["function"]["name"], c["type"]) for c in calls] == [
        ("call_1", "add", "function"),
        ("call_2", "add", "function"),
    ]
    assert [(m.tool_call_id, m.name, m.content) for m in messages[2:4]] == [
        ("call_1", "add", '{"sum":3}'),
        ("call_2", "add", '{"sum":30}'),
    ]
    second: ChatRequest = adapter.requests[1]
    assert [m.role for m in second.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL]
    assert [t["name"] for t in adapter.requests[0].tools] == ["add"]


async def test_a_tool_result_keeps_its_duration_and_error_state_for_a_reloaded_dialog() -> None:
    _, dialog, _ = make_dialog(
        [
            [
                ToolCallPart("c1", "slow", '{"seconds": 0.05}'),
                ToolCallPart("c2", "nonexistent", "{}"),
                FinishPart("tool_calls"),
            ],
            text_turn("done"),
        ]
    )
    dialog.add_function(slow)
    dialog.append_message(Role.USER, "go")
    events = await collect(dialog)
    finished = {e.call_id: e for e in events if isinstance(e, ToolCallFinished)}
    stored = {m.tool_call_id: Message.from_json(m.to_json()).meta for m in dialog.messages if m.role is Role.TOOL}
    assert stored["c1"]["is_error"] is False and stored["c2"]["is_error"] is True
    assert stored["c1"]["duration"] == round(finished["c1"].duration, 3) and stored["c1"]["duration"] >= 0.05
    assert stored["c2"]["duration"] == round(finished["c2"].duration, 3)


async def test_unknown_tools_and_bad_arguments_become_results_the_model_reads() -> None:
    _, dialog, adapter = make_dialog(
        [
            [
                ToolCallPart("c1", "nonexistent", "{}"),
                ToolCallPart("c2", "add", '{"a": "one"}'),
                ToolCallPart("c3", "add", "{not json"),
                FinishPart("tool_calls"),
            ],
            text_turn("sorry"),
        ]
    )
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    events = await collect(dialog)
    assert isinstance(events[-1], RunFinished)
    results = {m.tool_call_id: json.loads(m.content)["error"] for m in dialog.messages if m.role is Role.TOOL}
    assert "unknown tool 'nonexistent'" in results["c1"]
    assert "invalid arguments for add" in results["c2"] and "'one' is not of type 'integer'" in results["c2"]
    assert "not valid JSON" in results["c3"]
    assert all(e.is_error for e in events if isinstance(e, ToolCallFinished))
    assert len(adapter.requests) == 2


async def test_calls_without_ids_or_with_repeated_ids_get_unique_ones() -> None:
    _, dialog, _ = make_dialog(
        [
            [
                ToolCallPart("", "add", '{"a":1,"b":1}'),
                ToolCallPart("dup", "add", '{"a":1,"b":2}'),
                ToolCallPart("dup", "add", '{"a":1,"b":3}'),
                FinishPart("tool_calls"),
            ],
            text_turn("ok"),
        ]
    )
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    await collect(dialog)
    ids = [c["id"] for c in dialog.message_at(1).parsed_tool_calls()]
    assert len(set(ids)) == 3 and all(ids) and ids[1] == "dup"
    assert [m.tool_call_id for m in dialog.messages if m.role is Role.TOOL] == ids


async def test_a_second_run_while_running_fails_at_once_and_is_not_queued() -> None:
    _, dialog, adapter = make_dialog([[TextPart("slow"), Pause(0.2), FinishPart("stop")], text_turn("never")])
    dialog.append_message(Role.USER, "hi")
    first_events: list[Event] = []

    async def first() -> None:
        async for event in dialog.run():
            first_events.append(event)

    task = asyncio.create_task(first())
    while not dialog.is_streaming:
        await asyncio.sleep(0.001)
    assert dialog.is_running
    second = await collect(dialog)
    assert second == [RunFailed(ALREADY_RUNNING)]
    await task
    assert kinds(first_events) == ["StreamBegan", "StreamDelta", "MessageAppended", "StreamEnded", "RunFinished"]
    assert len(adapter.requests) == 1
    assert dialog.message_count == 2


async def test_a_provider_failure_keeps_the_partial_answer_and_emits_no_stream_ended() -> None:
    _, dialog, _ = make_dialog(
        [[ReasoningPart("hmm"), TextPart("partial"), ProviderError("server exploded (HTTP 500)")], text_turn("ok")]
    )
    dialog.append_message(Role.USER, "hi")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    events = await collect(dialog)
    assert kinds(events) == ["StreamBegan", "StreamReasoning", "StreamDelta", "MessageAppended", "RunFailed"]
    assert events[-1] == RunFailed("server exploded (HTTP 500)")
    assert heard == events
    kept = dialog.message_at(1)
    assert (kept.content, kept.reasoning, kept.meta["status"]) == ("partial", "hmm", "incomplete")
    assert kept.meta["error"] == "server exploded (HTTP 500)"
    assert not dialog.is_streaming and not dialog.is_running
    assert isinstance((await collect(dialog))[-1], RunFinished)  # the dialog stays usable


async def test_a_stream_without_finish_reason_is_an_incomplete_answer() -> None:
    _, dialog, _ = make_dialog([[TextPart("cut "), ToolCallPart("c", "add", "{}")]])
    dialog.add_function(add)
    dialog.append_message(Role.USER, "hi")
    events = await collect(dialog)
    assert isinstance(events[-1], RunFailed) and "incomplete" in events[-1].message
    assert not any(isinstance(e, StreamEnded | ToolCallStarted) for e in events)
    kept = dialog.message_at(1)
    assert kept.content == "cut " and kept.tool_calls == "" and kept.meta["status"] == "incomplete"


async def test_an_unexpected_adapter_exception_becomes_run_failed() -> None:
    _, dialog, _ = make_dialog([[TextPart("x"), RuntimeError("boom")]])
    dialog.append_message(Role.USER, "hi")
    events = await collect(dialog)
    assert isinstance(events[-1], RunFailed) and "RuntimeError: boom" in events[-1].message


async def test_max_rounds_ends_in_a_clear_failure_with_a_consistent_history() -> None:
    def always_call(request: ChatRequest) -> list[Any]:
        return [ToolCallPart(f"c{len(request.messages)}", "add", '{"a":1,"b":1}'), FinishPart("tool_calls")]

    center, dialog, adapter = make_dialog(always_call)
    center.settings["max_tool_rounds"] = 3
    dialog.add_function(add)
    dialog.append_message(Role.USER, "loop")
    events = await collect(dialog)
    assert isinstance(events[-1], RunFailed)
    assert "3 rounds" in events[-1].message and "max_tool_rounds" in events[-1].message
    assert len(adapter.requests) == 3
    roles = [m.role for m in dialog.messages]
    assert roles == [Role.USER] + [Role.ASSISTANT, Role.TOOL] * 3
    assert sum(isinstance(e, StreamBegan) for e in events) == 3
    assert sum(isinstance(e, StreamEnded) for e in events) == 3


async def test_default_max_rounds_is_sixteen() -> None:
    _, dialog, adapter = make_dialog(lambda r: [ToolCallPart("c", "add", '{"a":1,"b":1}'), FinishPart("tool_calls")])
    dialog.add_function(add)
    dialog.append_message(Role.USER, "loop")
    events = await collect(dialog)
    assert "16 rounds" in events[-1].message  # type: ignore[attr-defined]
    assert len(adapter.requests) == 16


# --- provider and model resolution ------------------------------------------------------------------------


async def test_without_a_provider_the_run_fails_with_an_actionable_message() -> None:
    dialog = Center().create_dialog()
    dialog.append_message(Role.USER, "hi")
    events = await collect(dialog)
    assert len(events) == 1 and isinstance(events[0], RunFailed)
    assert "no provider is configured" in events[0].message and "--demo" in events[0].message
    assert not dialog.is_running

    lonely = Dialog()
    assert "belongs to no Center" in (await collect(lonely))[0].message  # type: ignore[attr-defined]


async def test_an_unknown_provider_id_names_the_provider() -> None:
    _, dialog, _ = make_dialog([text_turn("x")])
    dialog.provider_id = "gone"
    events = await collect(dialog)
    assert isinstance(events[0], RunFailed) and "'gone'" in events[0].message


async def test_the_dialog_provider_wins_over_the_default() -> None:
    center, dialog, default_adapter = make_dialog([text_turn("default")])
    other = scripted_provider([text_turn("other")], id="other")
    center.add_provider(other)
    dialog.provider_id = "other"
    dialog.append_message(Role.USER, "hi")
    await collect(dialog)
    assert dialog.last_message.content == "other" and dialog.last_message.meta["provider_id"] == "other"
    assert default_adapter.requests == []


async def test_an_image_requires_an_image_model_and_never_reaches_a_text_model() -> None:
    text_only = [ModelInfo("t", capabilities=Capability.TEXT | Capability.TOOLS)]
    _, dialog, adapter = make_dialog([text_turn("x")], models=text_only)
    dialog.append_message(Message(Role.USER, "what is this", images=[Image("image/png", "AAAA")]))
    events = await collect(dialog)
    assert isinstance(events[0], RunFailed) and "image" in events[0].message
    assert adapter.requests == []


async def test_model_choice_prefers_the_dialog_model_then_tool_capable_models() -> None:
    models = [
        ModelInfo("plain", capabilities=Capability.TEXT),
        ModelInfo("tools", capabilities=Capability.TEXT | Capability.TOOLS),
    ]
    _, dialog, adapter = make_dialog([text_turn("a"), text_turn("b"), text_turn("c")], models=models)
    dialog.append_message(Role.USER, "hi")
    await collect(dialog)
    assert adapter.requests[0].model.id == "plain"  # no tools offered: the first model

    dialog.add_function(add)
    await collect(dialog)
    assert adapter.requests[1].model.id == "tools" and adapter.requests[1].tools

    dialog.model_id = "plain"  # the user's explicit choice wins; it gets no tools
    await collect(dialog)
    assert adapter.requests[2].model.id == "plain" and adapter.requests[2].tools == []


async def test_system_prompt_comes_from_skills_with_dialog_overrides() -> None:
    center, dialog, adapter = make_dialog([text_turn("x")])
    center.add_skill(Skill("tone", "Be terse."))
    center.add_skill(Skill("lang", "Answer in French."))
    dialog.add_skill(Skill("lang", "Answer in German."))
    dialog.append_message(Role.USER, "hi")
    await collect(dialog)
    assert adapter.requests[0].system == "Be terse.\n\nAnswer in German."


# --- approval ---------------------------------------------------------------------------------------------


def approval_script() -> list[list[Any]]:
    return [
        [ToolCallPart("c1", "delete_file", '{"path": "a.txt"}'), FinishPart("tool_calls")],
        text_turn("done"),
    ]


async def test_a_tool_needing_approval_is_denied_without_a_callback() -> None:
    _, dialog, _ = make_dialog(approval_script())
    dialog.add_function(delete_file)
    dialog.append_message(Role.USER, "delete")
    events = await collect(dialog)
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert finished.result == DENIED_RESULT and finished.is_error
    assert dialog.message_at(2).content == DENIED_RESULT


@pytest.mark.parametrize(
    ("decision", "result", "remembered"),
    [
        (Approval.ALLOW_ONCE, '{"result":"deleted a.txt"}', False),
        (Approval.ALLOW_FOR_DIALOG, '{"result":"deleted a.txt"}', True),
        (Approval.DENY, DENIED_RESULT, False),
    ],
)
async def test_the_approval_callback_decides(decision: Approval, result: str, remembered: bool) -> None:
    _, dialog, _ = make_dialog(approval_script())
    dialog.add_function(delete_file)
    dialog.append_message(Role.USER, "delete")
    asked: list[ToolCallRequest] = []

    async def approve(request: ToolCallRequest) -> Approval:
        asked.append(request)
        return decision

    events = await collect(dialog, approve=approve)
    assert asked == [ToolCallRequest("c1", "delete_file", "delete_file", {"path": "a.txt"}, dialog.id)]
    assert dialog.message_at(2).content == result
    assert ("delete_file" in dialog.approved_function_ids) is remembered
    started = events.index(ToolCallStarted("c1", "delete_file", {"path": "a.txt"}))
    assert isinstance(events[started + 1], ToolCallFinished)


async def test_an_approved_function_is_not_asked_again() -> None:
    _, dialog, _ = make_dialog(approval_script())
    dialog.add_function(delete_file)
    dialog.approved_function_ids.add("delete_file")
    dialog.append_message(Role.USER, "delete")

    async def never(request: ToolCallRequest) -> Approval:
        raise AssertionError("must not ask")

    await collect(dialog, approve=never)
    assert dialog.message_at(2).content == '{"result":"deleted a.txt"}'


async def test_a_cancel_while_waiting_for_approval_answers_the_call_with_cancelled() -> None:
    _, dialog, _ = make_dialog(approval_script())
    dialog.add_function(delete_file)
    dialog.append_message(Role.USER, "delete")
    asked = asyncio.Event()

    async def undecided(request: ToolCallRequest) -> Approval:
        asked.set()
        await asyncio.sleep(60)  # the user looks at the dialog and presses esc instead
        return Approval.ALLOW_ONCE

    heard: list[Event] = []
    dialog.subscribe(heard.append)
    task = asyncio.create_task(collect(dialog, approve=undecided))
    await asyncio.wait_for(asked.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert dialog.message_at(2).content == CANCELLED_RESULT and dialog.message_at(2).tool_call_id == "c1"
    assert "delete_file" not in dialog.approved_function_ids
    assert isinstance(heard[-1], RunCancelled) and not dialog.is_running


# --- MCP tool source --------------------------------------------------------------------------------------


class EchoTool(Function):
    @property
    def id(self) -> str:
        return "srv__echo"

    @property
    def name(self) -> str:
        return "echo"

    @property
    def description(self) -> str:
        return "Echo."

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": {"text": {"type": "string"}}}

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"echo": arguments.get("text", "")}


class FakeToolSource:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.asked: list[list[str]] = []

    async def functions_for(self, servers: list[MCPServer]) -> list[Function]:
        self.asked.append([s.name for s in servers])
        if self.fail:
            raise RuntimeError("server 'srv' exited with status 1")
        return [EchoTool()]

    async def aclose(self) -> None:
        pass


async def test_mcp_tools_come_from_the_center_tool_source() -> None:
    center, dialog, adapter = make_dialog(
        [[ToolCallPart("c", "srv__echo", '{"text":"hi"}'), FinishPart("tool_calls")], text_turn("ok")]
    )
    source = FakeToolSource()
    center.tool_source = source
    center.add_mcp(MCPServer("srv", command="x"))
    center.add_mcp(MCPServer("off", command="y", enabled=False))
    dialog.append_message(Role.USER, "echo")
    await collect(dialog)
    assert source.asked == [["srv"]]
    assert [t["name"] for t in adapter.requests[0].tools] == ["srv__echo"]
    assert dialog.message_at(2).content == '{"echo":"hi"}'


async def test_a_tool_source_failure_is_a_run_failed_and_the_dialog_stays_usable() -> None:
    center, dialog, adapter = make_dialog([text_turn("ok")])
    center.tool_source = FakeToolSource(fail=True)
    center.add_mcp(MCPServer("srv", command="x"))
    dialog.append_message(Role.USER, "hi")
    events = await collect(dialog)
    assert events == [RunFailed("the MCP tools could not be loaded: server 'srv' exited with status 1")]
    assert adapter.requests == [] and not dialog.is_running
    center.tool_source = FakeToolSource()  # the source works again
    assert isinstance((await collect(dialog))[-1], RunFinished)


# --- cancel -----------------------------------------------------------------------------------------------


async def run_in_task(dialog: Dialog) -> tuple[asyncio.Task[None], list[Event]]:
    seen: list[Event] = []

    async def consume() -> None:
        async for event in dialog.run():
            seen.append(event)

    return asyncio.create_task(consume()), seen


async def test_cancel_mid_stream_keeps_the_partial_answer_marked_interrupted() -> None:
    _, dialog, _ = make_dialog([[ReasoningPart("r"), TextPart("half an ans"), Pause(5), FinishPart("stop")]])
    dialog.append_message(Role.USER, "hi")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    task, _ = await run_in_task(dialog)
    while dialog.streaming_content != "half an ans":
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    kept = dialog.message_at(1)
    assert (kept.content, kept.reasoning, kept.meta["status"]) == ("half an ans", "r", "interrupted")
    assert kinds(heard)[-3:] == ["MessageAppended", "StreamEnded", "RunCancelled"]
    assert not dialog.is_running and not dialog.is_streaming


async def test_cancel_during_a_tool_answers_every_remaining_call_with_cancelled() -> None:
    _, dialog, _ = make_dialog(
        [
            [
                ToolCallPart("c1", "slow", '{"seconds": 5}'),
                ToolCallPart("c2", "add", '{"a":1,"b":2}'),
                FinishPart("tool_calls"),
            ]
        ]
    )
    dialog.add_function(slow)
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    task, _ = await run_in_task(dialog)
    while not any(isinstance(e, ToolCallStarted) for e in heard):
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    tools = [m for m in dialog.messages if m.role is Role.TOOL]
    assert [(m.tool_call_id, m.content) for m in tools] == [("c1", CANCELLED_RESULT), ("c2", CANCELLED_RESULT)]
    assert all(m.meta["is_error"] is True for m in tools)
    assert isinstance(heard[-1], RunCancelled)
    assert "status" not in dialog.message_at(1).meta  # the answer itself was complete


async def test_cancel_after_tool_calls_arrived_keeps_them_with_cancelled_results() -> None:
    paused = asyncio.Event()
    _, dialog, _ = make_dialog(
        [[TextPart("calling"), ToolCallPart("c1", "add", "{}"), Pause(5, paused), FinishPart("x")]]
    )
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    task, _ = await run_in_task(dialog)
    await asyncio.wait_for(paused.wait(), 10)  # the call has arrived; the stream has not finished
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assistant, tool = dialog.message_at(1), dialog.message_at(2)
    assert assistant.meta["status"] == "interrupted"
    assert [c["id"] for c in assistant.parsed_tool_calls()] == ["c1"]
    assert (tool.role, tool.tool_call_id, tool.content) == (Role.TOOL, "c1", CANCELLED_RESULT)


async def test_closing_the_iterator_early_counts_as_a_cancel() -> None:
    _, dialog, _ = make_dialog([[TextPart("a"), TextPart("b"), FinishPart("stop")]])
    dialog.append_message(Role.USER, "hi")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    run = dialog.run()
    async for event in run:
        if isinstance(event, StreamDelta):
            break
    await run.aclose()  # type: ignore[attr-defined]
    assert dialog.message_at(1).content == "a" and dialog.message_at(1).meta["status"] == "interrupted"
    assert isinstance(heard[-1], RunCancelled) and not dialog.is_running


async def test_a_run_can_start_again_after_a_cancel() -> None:
    paused = asyncio.Event()
    _, dialog, _ = make_dialog([[TextPart("x"), Pause(5, paused), FinishPart("stop")], text_turn("again")])
    dialog.append_message(Role.USER, "hi")
    task, _ = await run_in_task(dialog)
    await asyncio.wait_for(paused.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = await collect(dialog)
    assert isinstance(events[-1], RunFinished) and dialog.last_message.content == "again"
