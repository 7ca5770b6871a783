"""What real servers and proxies do that broke the app, replayed by the loopback server in both wire formats.

Seen on llama.cpp's server (a validation error as HTTP 500, no usage, one request at a time), on litellm (an
empty `stop` for a backend failure, one tool call split into blocks with the same id, "No connected db." for a
bad key), and on servers that close idle kept-alive connections. The real llama.cpp server shows the ones it
can in tests/interop/.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tests.engine.providers.test_both_wire_formats import ALL, KEY, Wire, add, run, setup
from tests.llm_server import (
    LLMServer,
    Reply,
    anthropic_stream,
    error_reply,
    openai_chunk,
    openai_stream,
    openai_tool_call,
    sse_reply,
)
from visindigo.engine import (
    AnswerMovedToReasoning,
    Center,
    EmptyAnswer,
    ModelInfo,
    Notice,
    Provider,
    Role,
    RunFailed,
    RunFinished,
    WaitingForProvider,
)


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Wire:
    return Wire(request.param)


def failures(events: list[Any]) -> list[str]:
    return [event.message for event in events if isinstance(event, RunFailed)]


# --- what goes out -------------------------------------------------------------------------------------------


async def test_the_assistant_message_of_a_tool_call_goes_back_with_an_empty_string(llm_server: LLMServer) -> None:
    wire = Wire("openai")
    llm_server.queue(wire.calls([("c1", "add", '{"a":1,"b":2}')]), wire.answer(["3"]))
    _, dialog = setup(llm_server, wire)
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    assistant = wire.sent_messages(llm_server, 1)[1]
    assert assistant["role"] == "assistant" and assistant["content"] == ""  # never null
    assert assistant["tool_calls"][0]["id"] == "c1"


async def test_anthropic_never_sends_an_empty_text_block(llm_server: LLMServer) -> None:
    wire = Wire("anthropic")
    llm_server.queue(wire.calls([("c1", "add", '{"a":1,"b":2}')]), wire.answer(["3"]))
    _, dialog = setup(llm_server, wire)
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    assistant = wire.sent_messages(llm_server, 1)[1]
    assert [block["type"] for block in assistant["content"]] == ["tool_use"]  # the API rejects empty text blocks


async def test_parameters_are_sent_only_when_set(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["a"]), wire.answer(["b"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    first = llm_server.requests[0].json
    assert not {"temperature", "top_p", "seed", "stop", "stop_sequences", "tool_choice"} & set(first)
    dialog.parameters = {"max_tokens": 64, "temperature": 0.2, "top_p": 0.9, "seed": 3, "stop": ["END"]}
    dialog.append_message(Role.USER, "again")
    await run(dialog)
    second = llm_server.requests[1].json
    assert second["max_tokens"] == 64 and second["temperature"] == 0.2 and second["top_p"] == 0.9
    if wire.kind == "openai":
        assert second["seed"] == 3 and second["stop"] == ["END"]
    else:
        assert "seed" not in second and second["stop_sequences"] == ["END"]


@pytest.mark.parametrize("through_extra_body", [False, True])
async def test_a_forced_tool_choice_applies_to_the_first_round_only(
    llm_server: LLMServer, wire: Wire, through_extra_body: bool
) -> None:
    llm_server.queue(wire.calls([("c1", "add", '{"a":1,"b":2}')]), wire.answer(["3"]))
    center, dialog = setup(llm_server, wire)
    if through_extra_body:
        forced = {"type": "function", "function": {"name": "add"}} if wire.kind == "openai" else {"type": "any"}
        center.get_provider("p").settings["extra_body"] = {"tool_choice": forced}  # type: ignore[union-attr]
    else:
        dialog.parameters = {"tool_choice": "add"}
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    first, second = (request.json["tool_choice"] for request in llm_server.requests)
    if wire.kind == "openai":
        assert first in ({"type": "function", "function": {"name": "add"}},)
        assert second == "auto"
    else:
        assert first in ({"type": "tool", "name": "add"}, {"type": "any"})
        assert second == {"type": "auto"}


async def test_no_tool_choice_without_tools(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["a"]))
    _, dialog = setup(llm_server, wire)
    dialog.parameters = {"tool_choice": "required"}
    dialog.append_message(Role.USER, "q")
    assert failures(await run(dialog)) == []
    assert "tool_choice" not in llm_server.requests[0].json


# --- errors: what is retried and what is shown at once -------------------------------------------------------


async def test_a_validation_error_as_http_500_is_shown_at_once_with_the_servers_words(
    llm_server: LLMServer, wire: Wire
) -> None:
    words = "1 validation error for ChatCompletionRequest messages.1.content Input should be a valid string"
    llm_server.queue(error_reply(500, words, shape=wire.error_shape()), wire.answer(["never"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    assert len(llm_server.requests) == 1
    assert "Input should be a valid string" in message and "try again shortly" not in message
    assert "retrying would not help" in message


@pytest.mark.parametrize("status", [400, 401, 404, 408, 422])
async def test_a_4xx_is_not_retried(llm_server: LLMServer, status: int) -> None:
    wire = Wire("openai")
    llm_server.queue(error_reply(status, "no such thing"), wire.answer(["never"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    assert len(llm_server.requests) == 1 and "no such thing" in message


@pytest.mark.parametrize("status", [500, 502, 503, 504, 529])
async def test_a_passing_server_failure_is_retried(llm_server: LLMServer, status: int) -> None:
    wire = Wire("openai")
    llm_server.queue(error_reply(status, "upstream hiccup"), wire.answer(["ok"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    assert failures(await run(dialog)) == []
    assert dialog.last_message.content == "ok" and len(llm_server.requests) == 2


async def test_a_kept_alive_connection_closed_by_the_server_is_retried_once(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["first"]), Reply(drop=True), wire.answer(["second"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    assert failures(await run(dialog)) == []
    dialog.append_message(Role.USER, "again")
    assert failures(await run(dialog)) == []  # the dropped request was sent again, not shown as a failure
    assert dialog.last_message.content == "second" and len(llm_server.requests) == 3


async def test_a_connection_that_keeps_dropping_fails_after_one_retry(llm_server: LLMServer) -> None:
    wire = Wire("openai")
    llm_server.queue(Reply(drop=True), Reply(drop=True), wire.answer(["never"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    assert len(llm_server.requests) == 2 and "Endpoint" in message


async def test_an_error_event_before_any_content_is_retried(llm_server: LLMServer, wire: Wire) -> None:
    if wire.kind == "openai":
        broken = sse_reply([openai_chunk({"role": "assistant"}), {"error": {"message": "backend overloaded"}}])
    else:
        broken = anthropic_stream([], error=None, stop=False)
        broken.chunks.insert(
            1, b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
        )
        broken.chunks = broken.chunks[:2]
    llm_server.queue(broken, wire.answer(["fine"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert failures(events) == []
    assert dialog.last_message.content == "fine" and len(llm_server.requests) == 2
    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT]


async def test_an_error_event_after_content_is_not_retried(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.error_mid_stream("half an ans", "backend died"), wire.answer(["never"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    assert "backend died" in message and len(llm_server.requests) == 1
    assert dialog.last_message.content == "half an ans" and dialog.last_message.meta["status"] == "incomplete"


async def test_a_404_hint_fits_the_kind_of_provider(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(error_reply(404, "Not Found", shape=wire.error_shape()))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    if wire.kind == "openai":
        assert "/v1" in message and "OpenAI-compatible" in message
    else:
        assert "OpenAI" not in message and "Anthropic" in message


async def test_a_failing_model_list_shows_the_servers_words_first(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(401, "No connected db.")
    center = Center()
    center.add_provider(Provider("proxy", name="litellm", base_url=llm_server.openai_url, api_key=KEY))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "q")
    [message] = failures(await run(dialog))
    assert message.index("No connected db.") < message.index("has no models")
    assert KEY not in message


# --- what comes back ------------------------------------------------------------------------------------------


async def test_repeated_call_ids_are_one_call_in_the_openai_format(llm_server: LLMServer) -> None:
    split = [
        *openai_tool_call("dup", "add", ['{"a":1,'], index=0),
        openai_chunk({"tool_calls": [{"index": 1, "id": "dup", "function": {"arguments": '"b":2}'}}]}),
    ]
    llm_server.queue(openai_stream(tool_calls=split, finish="tool_calls"), openai_stream(["3"]))
    _, dialog = setup(llm_server, Wire("openai"))
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    calls = dialog.message_at(1).parsed_tool_calls()
    assert [(c["id"], c["function"]["arguments"]) for c in calls] == [("dup", '{"a":1,"b":2}')]
    assert [m.content for m in dialog.messages if m.role is Role.TOOL] == ['{"sum":3}']


async def test_tool_use_blocks_with_one_id_are_one_call_in_the_anthropic_format(llm_server: LLMServer) -> None:
    """litellm split one call into five blocks with the same id; the app ran it five times, two with bad JSON."""
    pieces = [("toolu_1", "add", ['{"a":']), ("toolu_1", "", ["1,"]), ("toolu_1", "", ['"b":2}'])]
    llm_server.queue(anthropic_stream(tool_uses=pieces, stop_reason="tool_use"), anthropic_stream(["3"]))
    _, dialog = setup(llm_server, Wire("anthropic"))
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    calls = dialog.message_at(1).parsed_tool_calls()
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
        ("toolu_1", "add", '{"a":1,"b":2}')
    ]
    assert len([m for m in dialog.messages if m.role is Role.TOOL]) == 1


async def test_a_call_repeated_whole_under_one_id_runs_once(llm_server: LLMServer) -> None:
    pieces = [("toolu_1", "add", ['{"a":1,"b":2}']), ("toolu_1", "add", ['{"a":1,"b":2}'])]
    llm_server.queue(anthropic_stream(tool_uses=pieces, stop_reason="tool_use"), anthropic_stream(["3"]))
    _, dialog = setup(llm_server, Wire("anthropic"))
    dialog.add_function(add)
    dialog.append_message(Role.USER, "1+2?")
    assert failures(await run(dialog)) == []
    assert [m.content for m in dialog.messages if m.role is Role.TOOL] == ['{"sum":3}']


async def test_a_closing_think_tag_that_nothing_opened_makes_the_text_before_it_reasoning(
    llm_server: LLMServer,
) -> None:
    llm_server.queue(
        openai_stream(["Okay, the user", " wants a number.\n</th", "ink>\n\n", "42"]), openai_stream(["x"])
    )
    _, dialog = setup(llm_server, Wire("openai"))
    dialog.append_message(Role.USER, "number?")
    events = await run(dialog)
    moved = [event for event in events if isinstance(event, AnswerMovedToReasoning)]
    assert [event.text for event in moved] == ["Okay, the user wants a number.\n"]
    answer = dialog.last_message
    assert answer.content == "42" and answer.reasoning == "Okay, the user wants a number.\n"
    dialog.append_message(Role.USER, "again")
    await run(dialog)
    sent = llm_server.requests[1].json["messages"]
    assert sent[1] == {"role": "assistant", "content": "42"}  # the reasoning is never sent back


async def test_usage_is_estimated_and_marked_when_the_server_sends_none(llm_server: LLMServer, wire: Wire) -> None:
    if wire.kind == "openai":
        llm_server.queue(openai_stream(["Hello", " there", " friend"]))
    else:
        llm_server.queue(anthropic_stream(["Hello there friend"], usage=(0, 0)))
        llm_server.queue(anthropic_stream(["x"]))
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "a question of some forty characters long")
    await run(dialog)
    usage = dialog.last_message.meta["usage"]
    if wire.kind == "openai":
        assert usage["estimated"] is True
        assert usage["output_tokens"] >= 3 and usage["input_tokens"] >= 10
    else:  # the Messages API always reports usage: the server's figures are kept, unmarked
        assert "estimated" not in usage


async def test_the_servers_usage_is_used_when_it_comes(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["Hi"], usage=(7, 1)))
    _, dialog = setup(llm_server, Wire("openai"))
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    assert dialog.last_message.meta["usage"]["input_tokens"] == 7
    assert "estimated" not in dialog.last_message.meta["usage"]


async def test_an_empty_round_is_reported_and_appends_nothing(llm_server: LLMServer, wire: Wire) -> None:
    empty = openai_stream([], usage=(12, 0)) if wire.kind == "openai" else anthropic_stream([], usage=(12, 0))
    llm_server.queue(empty)
    _, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    [report] = [event for event in events if isinstance(event, EmptyAnswer)]
    assert report.finish_reason in ("stop", "end_turn") and report.output_tokens <= 1  # as the server counted
    assert [m.role for m in dialog.messages] == [Role.USER]
    assert isinstance(events[-1], RunFinished)


async def test_an_unavailable_model_is_replaced_with_a_notice_and_recorded(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["hi"]))
    _, dialog = setup(llm_server, Wire("openai"), models=[ModelInfo("served-model", capabilities=ALL)])
    dialog.model_id = "gone-model"
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    [notice] = [event.text for event in events if isinstance(event, Notice)]
    assert "gone-model" in notice and "served-model" in notice
    assert llm_server.requests[-1].json["model"] == "served-model"
    meta = dialog.last_message.meta
    assert meta["model_id"] == "served-model" and meta["requested_model_id"] == "gone-model"


async def test_a_model_that_rejects_tools_is_asked_again_without_them_and_remembered(llm_server: LLMServer) -> None:
    wire = Wire("openai")
    llm_server.queue(
        error_reply(400, "registry.ollama.ai/library/gemma3:270m does not support tools", shape="ollama"),
        wire.answer(["plain"]),
        wire.answer(["still plain"]),
    )
    center, dialog = setup(llm_server, wire)
    dialog.add_function(add)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert failures(events) == []
    [notice] = [event.text for event in events if isinstance(event, Notice)]
    assert "does not support tools" in notice and "without tools" in notice
    assert "tools" in llm_server.requests[0].json and "tools" not in llm_server.requests[1].json
    dialog.append_message(Role.USER, "again")
    events = await run(dialog)
    assert [event for event in events if isinstance(event, Notice)] == []  # said once
    assert "tools" not in llm_server.requests[2].json
    model = center.get_provider("p").get_model("test-model")  # type: ignore[union-attr]
    assert model is not None and "learnt" in model.extra["capability_sources"]["tools"]


# --- one request at a time --------------------------------------------------------------------------------------


async def test_runs_over_the_providers_limit_wait_their_turn(llm_server: LLMServer) -> None:
    slow = {"delay_between": 0.05}
    llm_server.queue(*(openai_stream(["a", "b", "c", "d"], **slow) for _ in range(3)))
    center = Center()
    center.add_provider(
        Provider(
            "one",
            name="llama.cpp",
            base_url=llm_server.openai_url,
            models=[ModelInfo("test-model")],
            settings={"max_concurrent_runs": 1},
        )
    )
    dialogs = [center.create_dialog() for _ in range(3)]
    for dialog in dialogs:
        dialog.append_message(Role.USER, "q")
    started = time.monotonic()
    results = await asyncio.gather(*(run(dialog) for dialog in dialogs))
    assert time.monotonic() - started >= 3 * 3 * 0.05  # one after the other
    assert llm_server.max_in_flight == 1
    assert all(dialog.last_message.content == "abcd" for dialog in dialogs)
    waiting = [event for events in results for event in events if isinstance(event, WaitingForProvider)]
    assert len(waiting) == 2 and waiting[0].provider_name == "llama.cpp"
    for events in results:  # "waiting" comes before the run's stream begins
        kinds = [type(event).__name__ for event in events]
        if "WaitingForProvider" in kinds:
            assert kinds.index("WaitingForProvider") < kinds.index("StreamBegan")


async def test_without_a_limit_runs_go_out_together(llm_server: LLMServer) -> None:
    llm_server.queue(*(openai_stream(["a", "b"], delay_between=0.1) for _ in range(2)))
    center = Center()
    center.add_provider(Provider("many", base_url=llm_server.openai_url, models=[ModelInfo("test-model")]))
    dialogs = [center.create_dialog() for _ in range(2)]
    for dialog in dialogs:
        dialog.append_message(Role.USER, "q")
    results = await asyncio.gather(*(run(dialog) for dialog in dialogs))
    assert llm_server.max_in_flight == 2
    assert not any(isinstance(event, WaitingForProvider) for events in results for event in events)


async def test_a_run_cancelled_while_waiting_frees_nothing_it_did_not_take(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["a", "b", "c"], delay_between=0.1), openai_stream(["next"]))
    center = Center()
    center.add_provider(
        Provider("one", base_url=llm_server.openai_url, models=[ModelInfo("m")], settings={"max_concurrent_runs": 1})
    )
    first, waiting, later = (center.create_dialog() for _ in range(3))
    for dialog in (first, waiting, later):
        dialog.append_message(Role.USER, "q")
    first_task = asyncio.create_task(run(first))
    await asyncio.sleep(0.05)
    waiting_task = asyncio.create_task(run(waiting))
    await asyncio.sleep(0.05)
    waiting_task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting_task
    await first_task
    assert failures(await run(later)) == []
    assert llm_server.max_in_flight == 1
    assert [m.role for m in waiting.messages] == [Role.USER]
