"""Ollama: answers over its own /api/chat, which sends `options.num_ctx` — the only way a request sets the window."""

from __future__ import annotations

import json
from typing import Any

from tests.engine.context.servers import ollama_show
from tests.engine.test_functions_and_commands import Echo
from tests.llm_server import LLMServer, Reply, json_reply
from visindigo.engine import Capability, Center, ModelInfo, Provider, Role, ToolCallFinished
from visindigo.engine.providers.windows import window


def ndjson(*lines: dict[str, Any]) -> Reply:
    return Reply(chunks=[(json.dumps(line) + "\n").encode() for line in lines], content_type="application/x-ndjson")


def said(text: str = "", thinking: str = "", **message: Any) -> dict[str, Any]:
    return {"model": "qwen3:8b", "message": {"role": "assistant", "content": text, "thinking": thinking, **message}}


def done(prompt: int, out: int) -> dict[str, Any]:
    return {"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": True,
            "done_reason": "stop", "prompt_eval_count": prompt, "eval_count": out}  # fmt: skip


def ollama_dialog(server: LLMServer, *, model: ModelInfo | None = None, **settings: Any) -> Any:
    server.route("POST", "/api/show", json_reply(ollama_show(40960)))
    center = Center()
    chosen = model or ModelInfo("qwen3:8b", capabilities=Capability.TEXT | Capability.TOOLS)
    center.add_provider(
        Provider(
            "o", kind="openai", base_url=server.openai_url, models=[chosen], settings={"server": "ollama", **settings}
        )
    )
    return center, center.create_dialog(), chosen


async def test_an_answer_goes_over_api_chat_with_the_window_it_asks_for(llm_server: LLMServer) -> None:
    _, dialog, model = ollama_dialog(llm_server)
    llm_server.route("POST", "/api/chat", ndjson(said(thinking="hmm"), said("Hel"), said("lo"), done(1200, 3)))
    dialog.parameters = {"temperature": 0.2, "max_tokens": 100}
    dialog.append_message(Role.USER, "hi")
    [event async for event in dialog.run()]
    answer = dialog.last_message
    assert (answer.content, answer.reasoning) == ("Hello", "hmm")
    assert answer.meta["usage"]["input_tokens"] == 1200 and answer.meta["usage"]["output_tokens"] == 3
    [chat] = [r for r in llm_server.requests if r.path == "/api/chat"]
    assert chat.json["options"] == {"num_ctx": 32768, "num_predict": 100, "temperature": 0.2}
    assert chat.json["messages"] == [{"role": "user", "content": "hi"}]
    assert window(model) == (32768, "sent: num_ctx 32768 to Ollama /api/chat")
    assert not [r for r in llm_server.requests if r.path == "/v1/chat/completions"]


async def test_the_models_own_num_ctx_and_the_cap_decide_what_is_sent(llm_server: LLMServer) -> None:
    own = ModelInfo("qwen3:8b", extra={"num_ctx": 12000})
    _, dialog, _ = ollama_dialog(llm_server, model=own, ollama_num_ctx_cap=8192)
    llm_server.route("POST", "/api/chat", ndjson(said("ok"), done(10, 1)))
    dialog.append_message(Role.USER, "hi")
    [event async for event in dialog.run()]
    [chat] = [r for r in llm_server.requests if r.path == "/api/chat"]
    assert chat.json["options"]["num_ctx"] == 12000


async def test_tool_calls_round_trip_in_ollamas_shape(llm_server: LLMServer) -> None:
    center, dialog, _ = ollama_dialog(llm_server)
    center.add_function(Echo())
    call = {"function": {"name": "echo", "arguments": {"text": "ping"}}}
    replies = [ndjson(said("", tool_calls=[call]), done(50, 5)), ndjson(said("pong back"), done(70, 2))]
    llm_server.route("POST", "/api/chat", lambda _request: replies.pop(0))
    dialog.append_message(Role.USER, "echo ping")
    events = [event async for event in dialog.run()]
    assert any(isinstance(e, ToolCallFinished) and e.function_id == "echo" for e in events)
    assert dialog.last_message.content == "pong back"
    second = [r for r in llm_server.requests if r.path == "/api/chat"][1].json
    assistant, result = second["messages"][1], second["messages"][2]
    assert assistant["tool_calls"] == [{"function": {"name": "echo", "arguments": {"text": "ping"}}}]
    assert result["role"] == "tool" and result["tool_name"] == "echo"
    assert second["tools"][0]["function"]["name"] == "echo"


async def test_the_openai_endpoint_stays_when_asked(llm_server: LLMServer) -> None:
    from tests.llm_server import openai_stream

    _, dialog, _ = ollama_dialog(llm_server, ollama_native=False)
    llm_server.queue(openai_stream(["ok"]))
    dialog.append_message(Role.USER, "hi")
    [event async for event in dialog.run()]
    assert dialog.last_message.content == "ok"
    assert [r.path for r in llm_server.requests if r.method == "POST"][-1] == "/v1/chat/completions"
