"""The Anthropic Messages adapter against the loopback server: request shape, events, tools, thinking, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.llm_server import LLMServer, anthropic_stream, error_reply
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
    Skill,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
    UsageReported,
)
from visindigo.engine.commands import command
from visindigo.engine.message import Image, Message
from visindigo.engine.providers import list_models

KEY = "sk-ant-test-0123456789abcdefghijklmnop"
ALL = Capability.TEXT | Capability.TOOLS | Capability.IMAGE | Capability.REASONING


@command()
def get_time(tz: str) -> dict[str, str]:
    """Current time in a time zone."""
    return {"tz": tz, "time": "12:00"}


def setup(server: LLMServer, *, base_url: str | None = None, **settings: Any) -> tuple[Center, Dialog, Provider]:
    center = Center()
    provider = Provider(
        "claude",
        kind="anthropic",
        name="Anthropic",
        base_url=server.anthropic_url if base_url is None else base_url,
        api_key=KEY,
        models=[ModelInfo("claude-test", capabilities=ALL, max_output_tokens=2048)],
        settings={"retry_base_delay": 0.01, **settings},
    )
    center.add_provider(provider)
    return center, center.create_dialog(), provider


async def run(dialog: Dialog) -> list[Event]:
    return [event async for event in dialog.run()]


async def test_request_shape_and_a_streamed_answer(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["Hel", "lo"], thinking=["Let me ", "see."], usage=(25, 7)))
    center, dialog, _ = setup(llm_server, prompt_caching=False)  # the shape without breakpoints
    center.add_skill(Skill("style", "Be brief."))
    dialog.append_message(Message(Role.SYSTEM, "You are a test."))
    dialog.append_message(Role.USER, "hi")
    dialog.append_message(Message(Role.PROMPT, "and this", name="tpl"))
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    assert [e.text for e in events if isinstance(e, StreamReasoning)] == ["Let me ", "see."]
    assert [e.text for e in events if isinstance(e, StreamDelta)] == ["Hel", "lo"]
    assert UsageReported(25, 7, 0, 0) in events
    answer = dialog.last_message
    assert (answer.content, answer.reasoning) == ("Hello", "Let me see.")
    assert answer.meta["finish_reason"] == "end_turn"
    assert answer.meta["provider_data"]["thinking_blocks"] == [
        {"type": "thinking", "thinking": "Let me see.", "signature": "sig-test"}
    ]
    request = llm_server.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.headers["x-api-key"] == KEY and "authorization" not in request.headers
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.json == {
        "model": "claude-test",
        "max_tokens": 2048,
        "system": "Be brief.\n\nYou are a test.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "and this"}]}
        ],
        "stream": True,
    }


async def test_a_base_url_without_v1_gets_it(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["ok"]))
    _, dialog, _ = setup(llm_server, base_url=llm_server.url)
    dialog.append_message(Role.USER, "hi")
    await run(dialog)
    assert llm_server.requests[0].path == "/v1/messages"


async def test_tool_use_round_trip_with_thinking_signatures(llm_server: LLMServer) -> None:
    llm_server.queue(
        anthropic_stream(
            ["Checking."],
            thinking=["need tools"],
            signature="EqQBsig",
            tool_uses=[("toolu_01", "get_time", ['{"tz":', ' "UTC"}']), ("toolu_02", "get_time", ['{"tz":"CET"}'])],
            stop_reason="tool_use",
        ),
        anthropic_stream(["Noon in both."]),
    )
    _, dialog, _ = setup(llm_server, prompt_caching=False)  # the shape without breakpoints
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "time?")
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    first = llm_server.requests[0].json
    assert first["tools"] == [
        {
            "name": "get_time",
            "description": "Current time in a time zone.",
            "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
        }
    ]
    second = llm_server.requests[1].json["messages"]
    assert second[1] == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "need tools", "signature": "EqQBsig"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_01", "name": "get_time", "input": {"tz": "UTC"}},
            {"type": "tool_use", "id": "toolu_02", "name": "get_time", "input": {"tz": "CET"}},
        ],
    }
    assert second[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": '{"tz":"UTC","time":"12:00"}'},
            {"type": "tool_result", "tool_use_id": "toolu_02", "content": '{"tz":"CET","time":"12:00"}'},
        ],
    }
    assert len(second) == 3
    assert dialog.last_message.content == "Noon in both."


async def test_a_tool_call_without_input_deltas_has_empty_arguments(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(tool_uses=[("toolu_9", "get_time", [])], stop_reason="tool_use"))
    llm_server.queue(anthropic_stream(["ok"]))
    _, dialog, _ = setup(llm_server)
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "go")
    await run(dialog)
    assert dialog.message_at(1).parsed_tool_calls()[0]["function"]["arguments"] == "{}"
    assert "invalid arguments" in dialog.message_at(2).content


async def test_thinking_budget_setting(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["ok"]))
    _, dialog, _ = setup(llm_server, thinking_budget=4000, anthropic_version="2026-10-21")
    dialog.append_message(Role.USER, "hi")
    await run(dialog)
    request = llm_server.requests[0]
    assert request.json["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert request.json["max_tokens"] > 4000
    assert request.headers["anthropic-version"] == "2026-10-21"


async def test_images_go_as_base64_blocks(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["a cat"]))
    _, dialog, _ = setup(llm_server, prompt_caching=False)  # the shape without breakpoints
    dialog.append_message(Message(Role.USER, "what?", images=[Image("image/jpeg", "/9j/4AAQ")]))
    await run(dialog)
    assert llm_server.requests[0].json["messages"][0]["content"] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}},
        {"type": "text", "text": "what?"},
    ]


async def test_a_mid_stream_error_event_keeps_the_text(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["partial"], error={"type": "overloaded_error", "message": "Overloaded"}))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and "Overloaded" in events[-1].message
    assert not any(isinstance(e, StreamEnded) for e in events)
    kept = dialog.last_message
    assert (kept.content, kept.meta["status"]) == ("partial", "incomplete")


async def test_a_stream_without_message_stop_is_incomplete(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_stream(["cut"], stop=False))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and "incomplete" in events[-1].message


async def test_unknown_event_types_are_skipped(llm_server: LLMServer) -> None:
    reply = anthropic_stream(["fine"])
    reply.chunks.insert(1, b'event: future_event\ndata: {"type": "future_event", "x": 1}\n\n')
    llm_server.queue(reply)
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert dialog.last_message.content == "fine"


async def test_an_invalid_json_event_fails_and_keeps_the_text(llm_server: LLMServer) -> None:
    reply = anthropic_stream(["before"], stop=False)
    reply.chunks.insert(-1, b"event: content_block_delta\ndata: {broken\n\n")
    llm_server.queue(reply)
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and "not JSON" in events[-1].message
    assert dialog.last_message.content == "before"


async def test_http_errors_in_anthropic_shape(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(401, f"invalid x-api-key {KEY}", shape="anthropic"))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed)
    message = events[-1].message
    assert "refused the API key" in message and "invalid x-api-key" in message and KEY not in message


async def test_overload_529_is_retried(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(529, "Overloaded", shape="anthropic"), anthropic_stream(["ok"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert len(llm_server.requests) == 2


async def test_thinking_blocks_go_back_only_to_the_provider_that_made_them(llm_server: LLMServer) -> None:
    llm_server.queue(
        anthropic_stream(thinking=["t"], signature="S1", tool_uses=[("toolu_1", "get_time", ['{"tz":"UTC"}'])]),
        anthropic_stream(["done"]),
        anthropic_stream(["other"]),
    )
    center, dialog, _ = setup(llm_server)
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "go")
    await run(dialog)
    assert '"signature": "S1"' in json.dumps(llm_server.requests[1].json)
    other = Provider(
        "claude2", kind="anthropic", base_url=llm_server.anthropic_url, models=[ModelInfo("claude-test")]
    )
    center.add_provider(other)
    dialog.provider_id = "claude2"
    dialog.append_message(Role.USER, "again")
    await run(dialog)
    assert "S1" not in json.dumps(llm_server.requests[2].json)
    await center.aclose()


async def test_model_listing(llm_server: LLMServer) -> None:
    llm_server.models = ["claude-test", "claude-other"]
    _, _, provider = setup(llm_server)
    models = await list_models(provider)
    assert [m.id for m in models] == ["claude-test", "claude-other"]
    assert llm_server.requests[0].headers["x-api-key"] == KEY
    await provider.aclose()


@pytest.mark.parametrize("kind", ["nonsense", "scripted"])
async def test_unusable_kinds_fail_with_a_clear_message(kind: str) -> None:
    center = Center()
    center.add_provider(Provider("p", kind=kind, models=[ModelInfo("m")]))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert len(events) == 1 and isinstance(events[0], RunFailed)
    assert kind in events[0].message
