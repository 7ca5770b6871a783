"""The engine against a real llama.cpp server (llama-cpp-python on Gemma 3 270M): what the loopback script
server cannot show, because these are the server's own behaviours.

The model's words are noise (a base model), so the tests assert the protocol: deltas arrive, the answer is
stored, a forced tool call runs and its result gets an answer, usage is recorded, a cancel leaves a consistent
dialog and a usable server, and two dialogs asking at once both get their answer.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.interop.llama_server import LlamaServer
from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    Event,
    ModelInfo,
    Provider,
    Role,
    RunFailed,
    RunFinished,
    StreamDelta,
    ToolCallFinished,
    ToolCallStarted,
    WaitingForProvider,
)
from visindigo.engine.commands import command

pytestmark = pytest.mark.llama

SHORT = {"max_tokens": 12, "temperature": 0.0, "seed": 7}


@command()
def get_time(tz: str) -> dict[str, str]:
    """The current time in a time zone."""
    return {"tz": tz, "time": "12:00"}


def make_dialog(server: LlamaServer, **settings: Any) -> tuple[Center, Dialog]:
    center = Center()
    center.add_provider(
        Provider(
            "llamacpp",
            name="llama.cpp",
            base_url=server.base_url,
            models=[ModelInfo(server.model_id, capabilities=Capability.TEXT | Capability.TOOLS)],
            settings={"server": "llama.cpp", **settings},
        )
    )
    dialog = center.create_dialog()
    dialog.parameters = dict(SHORT)
    return center, dialog


async def run(dialog: Dialog) -> list[Event]:
    return [event async for event in dialog.run()]


def failures(events: list[Event]) -> list[str]:
    return [event.message for event in events if isinstance(event, RunFailed)]


async def test_a_streamed_answer_is_stored_with_its_usage(llama_server: LlamaServer) -> None:
    center, dialog = make_dialog(llama_server)
    dialog.append_message(Role.USER, "Say hello.")
    events = await run(dialog)
    assert failures(events) == []
    assert isinstance(events[-1], RunFinished)
    deltas = [event.text for event in events if isinstance(event, StreamDelta)]
    assert len(deltas) >= 2  # streamed token by token, not in one piece
    answer = dialog.last_message
    assert answer.role is Role.ASSISTANT and answer.content == "".join(deltas)
    assert answer.meta["finish_reason"] in ("stop", "length")
    usage = answer.meta["usage"]
    assert usage["input_tokens"] > 0 and 0 < usage["output_tokens"] <= 12 + 1
    await center.aclose()


async def test_regenerate_gives_a_second_answer_in_a_branch(llama_server: LlamaServer) -> None:
    center, dialog = make_dialog(llama_server)
    dialog.parameters = {"max_tokens": 8, "temperature": 1.5, "seed": 1}
    dialog.append_message(Role.USER, "Name a colour.")
    assert failures(await run(dialog)) == []
    branch = center.regenerate(dialog)
    branch.parameters = {**branch.parameters, "seed": 2}
    assert branch.message_count == 1 and branch.branch_from_id == dialog.id
    assert failures(await run(branch)) == []
    assert branch.last_message.role is Role.ASSISTANT and branch.last_message.content
    assert dialog.message_count == 2  # the first answer is kept in its own dialog
    await center.aclose()


async def test_a_forced_tool_call_runs_and_its_result_gets_an_answer(llama_server: LlamaServer) -> None:
    """The bug this guards: after the call the assistant message went back with `content: null`, which this
    server answers with HTTP 500, retried four times. Now it is "" and the second round answers."""
    center, dialog = make_dialog(llama_server)
    dialog.add_function(get_time)
    dialog.parameters = {**SHORT, "max_tokens": 16, "tool_choice": "get_time"}  # grammar sampling is slow
    dialog.append_message(Role.USER, "What time is it in UTC?")
    events = await run(dialog)
    assert failures(events) == []
    started = [event for event in events if isinstance(event, ToolCallStarted)]
    finished = [event for event in events if isinstance(event, ToolCallFinished)]
    assert len(started) == 1 and started[0].function_id == "get_time"  # forced in the first round only
    assert len(finished) == 1
    roles = [message.role for message in dialog.messages]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    call = dialog.message_at(1).parsed_tool_calls()[0]
    assert call["function"]["name"] == "get_time"
    assert dialog.message_at(2).tool_call_id == call["id"]
    assert isinstance(events[-1], RunFinished)
    await center.aclose()


async def test_the_tool_result_round_sends_an_empty_string_not_null(llama_server: LlamaServer) -> None:
    """What the server does with the old shape, so the fix stays needed knowledge rather than folklore."""
    import httpx

    body = {
        "model": llama_server.model_id,
        "max_tokens": 4,
        "messages": [
            {"role": "user", "content": "time?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"UTC"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"time":"12:00"}'},
        ],
    }
    async with httpx.AsyncClient(timeout=60, trust_env=False) as client:
        null_content = await client.post(f"{llama_server.base_url}/chat/completions", json=body)
        body["messages"][1]["content"] = ""
        empty_content = await client.post(f"{llama_server.base_url}/chat/completions", json=body)
    assert null_content.status_code >= 400
    assert empty_content.status_code == 200


async def test_cancel_mid_stream_keeps_the_partial_answer_and_the_server_answers_again(
    llama_server: LlamaServer,
) -> None:
    center, dialog = make_dialog(llama_server)
    dialog.parameters = {**SHORT, "max_tokens": 200}
    dialog.append_message(Role.USER, "Tell a long story.")
    seen: list[str] = []

    async def consume() -> None:
        async for event in dialog.run():
            if isinstance(event, StreamDelta):
                seen.append(event.text)

    task = asyncio.create_task(consume())
    for _ in range(600):
        await asyncio.sleep(0.05)
        if len(seen) >= 3:
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    partial = dialog.last_message
    assert partial.role is Role.ASSISTANT and partial.meta.get("status") == "interrupted"
    assert partial.content.startswith("".join(seen[:3]))
    dialog.parameters = dict(SHORT)
    dialog.append_message(Role.USER, "Again.")
    assert failures(await run(dialog)) == []
    assert dialog.last_message.role is Role.ASSISTANT
    await center.aclose()


async def test_two_dialogs_asking_at_once_both_get_their_answer(llama_server: LlamaServer) -> None:
    """This server cuts the stream it serves when a second request arrives; `max_concurrent_runs = 1` makes the
    second run wait (and say so) instead of destroying the first answer."""
    center, first = make_dialog(llama_server)
    second = center.create_dialog()
    for dialog in (first, second):
        dialog.parameters = {**SHORT, "max_tokens": 24}
        dialog.append_message(Role.USER, "Count to ten.")
    one, two = await asyncio.gather(run(first), run(second))
    assert failures(one) == [] and failures(two) == []
    for dialog in (first, second):
        assert dialog.last_message.role is Role.ASSISTANT and dialog.last_message.content
        assert dialog.last_message.meta["finish_reason"] in ("stop", "length")
        assert "status" not in dialog.last_message.meta
    assert any(isinstance(event, WaitingForProvider) for event in [*one, *two])
    await center.aclose()


async def test_a_request_the_server_cannot_parse_is_not_retried(llama_server: LlamaServer) -> None:
    """A validation error (here a temperature the server refuses) is shown at once with the server's words."""
    center, dialog = make_dialog(llama_server, extra_body={"temperature": "hot"}, retry_base_delay=5.0)
    dialog.append_message(Role.USER, "hi")
    loop = asyncio.get_running_loop()
    started = loop.time()
    events = await run(dialog)
    elapsed = loop.time() - started
    [message] = failures(events)
    assert "temperature" in message and "try again shortly" not in message
    assert elapsed < 5.0  # no backoff: a retry would have waited at least retry_base_delay
    await center.aclose()


def test_the_server_lists_its_model(llama_server: LlamaServer) -> None:
    import httpx

    document = httpx.get(f"{llama_server.base_url}/models", timeout=10, trust_env=False).json()
    assert [entry["id"] for entry in document["data"]] == [llama_server.model_id]
    assert json.dumps(document)  # a plain JSON list, as first-run discovery expects
