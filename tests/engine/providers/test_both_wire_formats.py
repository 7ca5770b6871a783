"""The run loop's promises, checked over HTTP for both wire formats: the same scenario, OpenAI and Anthropic.

Each scenario is written once against `Wire`, which knows how each format says "text", "a tool call", "an
error mid-stream" and so on; the loopback server then speaks that format to the real adapter.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from tests.llm_server import LLMServer, Reply, anthropic_stream, error_reply, openai_stream, openai_tool_call
from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    Event,
    MessageAppended,
    ModelInfo,
    Provider,
    Role,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    StreamEnded,
    ToolCallFinished,
    UsageReported,
)
from visindigo.engine.commands import command
from visindigo.engine.message import Image, Message

KEY = "sk-both-formats-0123456789abcdef"
ALL = Capability.TEXT | Capability.TOOLS | Capability.IMAGE | Capability.REASONING


@command()
def add(a: int, b: int) -> dict[str, int]:
    """Add two integers."""
    return {"sum": a + b}


@command()
def explode(reason: str) -> str:
    """A tool that always fails."""
    raise RuntimeError(f"disk on fire: {reason}")


@command()
async def wait(seconds: float) -> str:
    """Sleep, then answer."""
    await asyncio.sleep(seconds)
    return "waited"


@dataclass
class Wire:
    kind: str

    def answer(self, text: Sequence[str], *, reasoning: Sequence[str] = (), **kwargs: Any) -> Reply:
        if self.kind == "openai":
            return openai_stream(text, reasoning=reasoning, usage=(10, 5), **kwargs)
        return anthropic_stream(text, thinking=reasoning, usage=(10, 5), **kwargs)

    def calls(self, calls: Sequence[tuple[str, str, str]]) -> Reply:
        if self.kind == "openai":
            chunks = []
            for index, (call_id, name, arguments) in enumerate(calls):
                chunks += openai_tool_call(call_id, name, [arguments], index=index)
            return openai_stream(tool_calls=chunks, finish="tool_calls")
        return anthropic_stream(
            tool_uses=[(call_id, name, [arguments]) for call_id, name, arguments in calls], stop_reason="tool_use"
        )

    def only_reasoning(self, reasoning: str) -> Reply:
        """The output limit was reached while the model was still thinking: no answer text at all."""
        if self.kind == "openai":
            return openai_stream(reasoning=[reasoning], finish="length")
        return anthropic_stream(thinking=[reasoning], stop_reason="max_tokens")

    def error_mid_stream(self, text: str, message: str) -> Reply:
        if self.kind == "openai":
            return openai_stream([text], after=[{"error": {"message": message}}], finish=None)
        return anthropic_stream([text], error={"type": "overloaded_error", "message": message})

    def no_finish(self, text: str) -> Reply:
        if self.kind == "openai":
            return openai_stream([text], finish=None, done=False)
        return anthropic_stream([text], stop=False)

    def invalid_line(self, text: str) -> Reply:
        reply = self.no_finish(text)
        reply.chunks.append(b"data: {not json at all\n\n")
        return reply

    def cut(self, text: str) -> Reply:
        reply = self.no_finish(text)
        reply.chunks.append(b'data: {"type":"content_block_delta","ind')
        reply.cut = True
        return reply

    def error_shape(self) -> str:
        return "openai" if self.kind == "openai" else "anthropic"

    def sent_messages(self, server: LLMServer, number: int) -> list[dict[str, Any]]:
        return list(server.requests[number].json["messages"])

    def declared_tools(self, server: LLMServer, number: int) -> list[str]:
        tools = server.requests[number].json["tools"]
        return [t["function"]["name"] if self.kind == "openai" else t["name"] for t in tools]


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Wire:
    return Wire(request.param)


def setup(server: LLMServer, wire: Wire, **kwargs: Any) -> tuple[Center, Dialog]:
    center = Center()
    provider = Provider(
        "p",
        kind=wire.kind,
        name="Endpoint",
        base_url=server.openai_url,
        api_key=KEY,
        models=kwargs.pop("models", [ModelInfo("test-model", capabilities=ALL)]),
        settings={"retry_base_delay": 0.01},
        **kwargs,
    )
    center.add_provider(provider)
    return center, center.create_dialog()


async def run(dialog: Dialog) -> list[Event]:
    return [event async for event in dialog.run()]


def failed_with_ends(events: list[Event]) -> str:
    """A failure after complete rounds (each round ended normally)."""
    assert isinstance(events[-1], RunFailed), events
    return events[-1].message


def failed(events: list[Event]) -> str:
    assert isinstance(events[-1], RunFailed), events
    assert not any(isinstance(e, StreamEnded) for e in events)
    return events[-1].message


async def test_an_answer_with_reasoning_and_usage(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["Hi ", "there"], reasoning=["hmm"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "hello")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    events = await run(dialog)
    assert [type(e).__name__ for e in events] == [
        "StreamBegan",
        "StreamReasoning",
        "StreamDelta",
        "StreamDelta",
        "UsageReported",
        "MessageAppended",
        "StreamEnded",
        "RunFinished",
    ]
    assert heard == events and events[4] == UsageReported(10, 5, 0, 0)
    answer = dialog.last_message
    assert (answer.content, answer.reasoning, answer.meta["provider_id"], answer.meta["model_id"]) == (
        "Hi there",
        "hmm",
        "p",
        "test-model",
    )
    await center.aclose()


async def test_an_answer_of_only_reasoning_is_kept_and_not_sent_back(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.only_reasoning("thinking until the limit"), wire.answer(["short answer"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "hard question")
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    kept = dialog.last_message
    assert (kept.role, kept.content, kept.reasoning) == (Role.ASSISTANT, "", "thinking until the limit")
    assert kept.meta["finish_reason"] in ("length", "max_tokens")
    assert any(isinstance(e, MessageAppended) for e in events)
    dialog.append_message(Role.USER, "shorter, please")
    await run(dialog)
    sent = json.dumps(wire.sent_messages(llm_server, 1))
    assert "thinking until the limit" not in sent and "shorter, please" in sent
    await center.aclose()


async def test_the_tool_loop_with_unknown_tools_and_bad_arguments(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(
        wire.calls(
            [
                ("c1", "add", '{"a": 2, "b": 3}'),
                ("c2", "nope", "{}"),
                ("c3", "add", '{"a": "x"}'),
                ("c4", "explode", '{"reason": "test"}'),
            ]
        ),
        wire.answer(["5, and three errors"]),
    )
    center, dialog = setup(llm_server, wire)
    center.add_function(explode)  # the Center's functions are offered next to the dialog's
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    assert sum(isinstance(e, StreamBegan) for e in events) == 2
    declared = wire.declared_tools(llm_server, 0)
    assert sorted(declared) == ["add", "explode"]
    results = [(e.call_id, e.is_error) for e in events if isinstance(e, ToolCallFinished)]
    assert results == [("c1", False), ("c2", True), ("c3", True), ("c4", True)]
    tools = [m for m in dialog.messages if m.role is Role.TOOL]
    assert [(m.tool_call_id, m.name) for m in tools] == [
        ("c1", "add"),
        ("c2", "nope"),
        ("c3", "add"),
        ("c4", "explode"),
    ]
    assert tools[0].content == '{"sum":5}'
    assert "unknown tool" in tools[1].content and "invalid arguments" in tools[2].content
    assert "disk on fire: test" in tools[3].content
    sent = json.dumps(wire.sent_messages(llm_server, 1))
    for call_id in ("c1", "c2", "c3", "c4"):
        assert sent.count(f'"{call_id}"') == 2  # the call and its result
    assert "disk on fire" in sent
    await center.aclose()


async def test_a_cancel_during_a_tool_leaves_every_call_answered_on_the_wire(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(
        wire.calls([("c1", "wait", '{"seconds": 5}'), ("c2", "add", '{"a": 1, "b": 1}')]), wire.answer(["ok"])
    )
    center, dialog = setup(llm_server, wire)
    dialog.add_function(wait)
    dialog.add_function(add)
    dialog.append_message(Role.USER, "go")
    task = asyncio.create_task(run(dialog))
    while dialog.message_count < 2:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(m.role, m.tool_call_id) for m in dialog.messages[2:]] == [(Role.TOOL, "c1"), (Role.TOOL, "c2")]
    dialog.append_message(Role.USER, "never mind")
    assert isinstance((await run(dialog))[-1], RunFinished)
    sent = json.dumps(wire.sent_messages(llm_server, 1))
    assert sent.count("cancelled by the user") == 2 and "never mind" in sent
    await center.aclose()


async def test_max_rounds_over_http(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(*[wire.calls([(f"c{i}", "add", '{"a":1,"b":1}')]) for i in range(3)])
    center, dialog = setup(llm_server, wire)
    center.settings["max_tool_rounds"] = 2
    dialog.add_function(add)
    dialog.append_message(Role.USER, "loop")
    assert "2 rounds" in failed_with_ends(await run(dialog))
    assert len(llm_server.requests) == 2 and llm_server.pending == 1
    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.TOOL]
    await center.aclose()


async def test_reasoning_is_not_sent_back(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["A1"], reasoning=["private thought"]), wire.answer(["A2"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q1")
    await run(dialog)
    dialog.append_message(Role.USER, "q2")
    await run(dialog)
    body = json.dumps(llm_server.requests[1].json)
    assert "A1" in body and "private thought" not in body
    await center.aclose()


async def test_an_image_goes_only_to_an_image_model(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(wire.answer(["a cat"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Message(Role.USER, "look", images=[Image("image/png", "QUJD")]))
    await run(dialog)
    assert "QUJD" in json.dumps(llm_server.requests[0].json)
    text_only = Center()
    model = ModelInfo("m", capabilities=Capability.TEXT)
    text_only.add_provider(Provider("t", kind=wire.kind, base_url=llm_server.openai_url, models=[model]))
    other = text_only.create_dialog()
    other.append_message(Message(Role.USER, "look", images=[Image("image/png", "QUJD")]))
    assert "image" in failed(await run(other))
    assert len(llm_server.requests) == 1
    # the dialog's chosen model cannot read images: another model of the provider that can answers
    llm_server.queue(wire.answer(["a dog"]))
    models = [ModelInfo("text", capabilities=Capability.TEXT), ModelInfo("vision", capabilities=ALL)]
    mixed, chosen = setup(llm_server, wire, models=models)
    chosen.model_id = "text"
    chosen.append_message(Message(Role.USER, "look", images=[Image("image/png", "QUJD")]))
    await run(chosen)
    assert llm_server.requests[1].json["model"] == "vision" and chosen.last_message.meta["model_id"] == "vision"
    await center.aclose()
    await mixed.aclose()
    await text_only.aclose()


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "refused the API key"), (404, "check the base URL"), (500, "server failed"), (429, "rate limited")],
)
async def test_http_errors(llm_server: LLMServer, wire: Wire, status: int, hint: str) -> None:
    llm_server.queue(*[error_reply(status, f"nope {KEY}", shape=wire.error_shape()) for _ in range(4)])
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    message = failed(await run(dialog))
    assert hint in message and f"HTTP {status}" in message and KEY not in message
    assert len(llm_server.requests) == (4 if status >= 429 else 1)  # 3 retries for 429 / 5xx
    await center.aclose()


async def test_a_retry_after_is_honoured(llm_server: LLMServer, wire: Wire) -> None:
    llm_server.queue(error_reply(429, "slow down", shape=wire.error_shape(), retry_after="0.1"), wire.answer(["ok"]))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert len(llm_server.requests) == 2
    await center.aclose()


async def test_a_redirect_is_not_followed_and_names_the_new_base_url(llm_server: LLMServer, wire: Wire) -> None:
    path = "/chat/completions" if wire.kind == "openai" else "/messages"
    with LLMServer() as elsewhere:
        elsewhere.queue(wire.answer(["must not be asked"]))
        moved = Reply(status=308, chunks=[b"moved"], content_type="text/plain")
        moved.headers["Location"] = elsewhere.openai_url + path
        llm_server.queue(moved)
        center, dialog = setup(llm_server, wire)
        dialog.append_message(Role.USER, "q")
        message = failed(await run(dialog))
        assert f"set the base URL to {elsewhere.openai_url}." in message and "HTTP 308" in message
        assert elsewhere.requests == []  # the key never went to the other host
        await center.aclose()


@pytest.mark.parametrize("breakage", ["error_mid_stream", "no_finish", "invalid_line", "cut"])
async def test_broken_streams_keep_the_text_that_arrived(llm_server: LLMServer, wire: Wire, breakage: str) -> None:
    reply = wire.error_mid_stream("so far", "Overloaded") if breakage == "error_mid_stream" else None
    llm_server.queue(reply or getattr(wire, breakage)("so far"))
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    message = failed(await run(dialog))
    expected = {
        "error_mid_stream": "Overloaded",
        "no_finish": "incomplete",
        "invalid_line": "not JSON",
        "cut": "broke in the middle",
    }[breakage]
    assert expected in message
    kept = dialog.last_message
    assert (kept.role, kept.content, kept.meta["status"]) == (Role.ASSISTANT, "so far", "incomplete")
    assert not dialog.is_running
    await center.aclose()


async def test_a_slow_first_byte_is_a_read_timeout(llm_server: LLMServer, wire: Wire) -> None:
    reply = wire.answer(["late"])
    reply.delay_first_byte = 0.8
    llm_server.queue(reply)
    center, dialog = setup(llm_server, wire, read_timeout=0.2)
    dialog.append_message(Role.USER, "q")
    assert "read timeout" in failed(await run(dialog))
    await center.aclose()


async def test_connection_refused(llm_server: LLMServer, wire: Wire, closed_port: int) -> None:
    center, dialog = setup(llm_server, wire)
    provider = center.get_provider("p")
    assert provider is not None
    provider.base_url = f"http://127.0.0.1:{closed_port}/v1"
    dialog.append_message(Role.USER, "q")
    message = failed(await run(dialog))
    assert "cannot connect" in message and "connection refused" in message and "is the server running" in message
    assert dialog.message_count == 1 and not dialog.is_running
    await center.aclose()


@pytest.mark.parametrize("base_url", ["127.0.0.1:8080/v1", "ftp://127.0.0.1/v1", "http://[::1/v1"])
async def test_an_invalid_base_url_is_named(llm_server: LLMServer, wire: Wire, base_url: str) -> None:
    center, dialog = setup(llm_server, wire)
    provider = center.get_provider("p")
    assert provider is not None
    provider.base_url = base_url
    dialog.append_message(Role.USER, "q")
    message = failed(await run(dialog))
    assert f"the base URL {base_url!r} is not a valid http(s) URL" in message and "http://host:port/v1" in message
    assert "unexpected" not in message
    await center.aclose()


async def test_connect_timeout(llm_server: LLMServer, wire: Wire, full_backlog: int) -> None:
    center, dialog = setup(llm_server, wire, connect_timeout=0.3)
    provider = center.get_provider("p")
    assert provider is not None
    provider.base_url = f"http://127.0.0.1:{full_backlog}/v1"
    dialog.append_message(Role.USER, "q")
    message = failed(await run(dialog))
    assert "timed out connecting" in message and "after 0.3 s" in message
    await center.aclose()


async def test_cancel_mid_stream_over_http(llm_server: LLMServer, wire: Wire) -> None:
    reply = wire.answer(["first ", "second ", "third"])
    reply.delay_between = 0.15
    llm_server.queue(reply)
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    heard: list[Event] = []
    dialog.subscribe(heard.append)

    async def consume() -> None:
        async for _ in dialog.run():
            pass

    task = asyncio.create_task(consume())
    while "first" not in dialog.streaming_content:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert dialog.last_message.content.startswith("first") and dialog.last_message.meta["status"] == "interrupted"
    assert isinstance(heard[-1], RunCancelled) and not dialog.is_running
    await center.aclose()


async def test_a_second_run_over_http_fails_at_once(llm_server: LLMServer, wire: Wire) -> None:
    reply = wire.answer(["a", "b"])
    reply.delay_between = 0.05
    llm_server.queue(reply)
    center, dialog = setup(llm_server, wire)
    dialog.append_message(Role.USER, "q")
    first = asyncio.create_task(run(dialog))
    while not dialog.is_streaming:
        await asyncio.sleep(0.005)
    second = await run(dialog)
    assert len(second) == 1 and isinstance(second[0], RunFailed) and "already" in second[0].message
    assert isinstance((await first)[-1], RunFinished)
    assert len(llm_server.requests) == 1
    await center.aclose()
