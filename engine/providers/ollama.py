"""Ollama's own chat API (`POST /api/chat`), for the one thing its OpenAI-compatible endpoint cannot do: set the
context window of a request.

Ollama cuts every prompt at its default `num_ctx` (4096 tokens in current versions) unless the request's
`options.num_ctx` or the model's Modelfile says otherwise, and `/v1/chat/completions` ignores a `num_ctx` sent with
it. So for a provider whose server is Ollama (the `server` setting, or its usual port) answers are asked of
`/api/chat`, with `options.num_ctx` from `windows.ollama_num_ctx`: the model's own `num_ctx` in the config, else its
trained length capped by `ollama_num_ctx_cap` (default 32768). The setting `ollama_native = false` keeps the
OpenAI-compatible endpoint. The model list, errors and everything else are the OpenAI adapter's.

The answer streams as one JSON object a line: `message.content`, `message.thinking`, `message.tool_calls`
(arguments as objects), and a last line with `done`, `done_reason`, `prompt_eval_count` and `eval_count`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from ..parameters import TOOL_CHOICE_MODES
from ._httpx import httpx
from .base import (
    ChatRequest,
    FinishPart,
    ReasoningPart,
    StreamPart,
    ToolCallPart,
    UsagePart,
)
from .capabilities import server_root
from .http import error_text, is_permanent_error, transport_error
from .openai import OpenAIAdapter, wire_messages
from .openai_body import wire_tools
from .think import PIECE_PARTS, ThinkSplitter
from .windows import ollama_num_ctx, set_window

__all__ = ["OllamaAdapter", "build_chat_body"]


class OllamaAdapter(OpenAIAdapter):
    """An Ollama server: its model list over `/v1/models`, its answers over `/api/chat`."""

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        body = build_chat_body(request)
        url = f"{server_root(self.provider.base_url)}/api/chat"
        response = await self.http.open_stream(url, body, self._headers("application/x-ndjson"))
        splitter = ThinkSplitter(starts_in_thinking=request.model.starts_in_thinking)
        calls: list[ToolCallPart] = []
        finish = ""
        usage: UsagePart | None = None
        try:
            async for line in response.aiter_lines():
                if not line.strip():
                    continue
                try:
                    chunk = json.loads(line)
                except ValueError:
                    raise self.http.fail(
                        f"the server sent a line that is not JSON ({line[:60]!r}); the answer so far was kept"
                    ) from None
                if not isinstance(chunk, dict):
                    continue
                if chunk.get("error"):
                    words = error_text(chunk)
                    raise self.http.fail(
                        f"the server reported an error mid-answer: {words}",
                        retryable=not is_permanent_error(None, words),
                        in_stream=True,
                    )
                message = chunk.get("message")
                if isinstance(message, dict):
                    thinking = message.get("thinking")
                    if isinstance(thinking, str) and thinking:
                        splitter.server_separates_reasoning()
                        yield ReasoningPart(thinking)
                    content = message.get("content")
                    if isinstance(content, str) and content:
                        for kind, text in splitter.feed(content):
                            yield PIECE_PARTS[kind](text)
                    for call in message.get("tool_calls") or []:
                        function = call.get("function") if isinstance(call, dict) else None
                        if isinstance(function, dict) and isinstance(function.get("name"), str):
                            arguments = function.get("arguments")
                            text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
                            calls.append(ToolCallPart(str(call.get("id") or ""), function["name"], text or "{}"))
                if chunk.get("done"):
                    finish = str(chunk.get("done_reason") or "stop")
                    usage = UsagePart(_count(chunk.get("prompt_eval_count")), _count(chunk.get("eval_count")))
                    break
        except httpx.HTTPError as error:
            raise self.http.fail(transport_error(error, self.provider) + "; the answer so far was kept") from None
        finally:
            await response.aclose()
        for kind, text in splitter.flush():
            yield PIECE_PARTS[kind](text)
        for call in calls:
            yield call
        if usage is not None:
            yield usage
        if finish:
            yield FinishPart("tool_calls" if calls else finish)


def build_chat_body(request: ChatRequest) -> dict[str, Any]:
    """The `/api/chat` request: the chat-completions messages in Ollama's shape, the parameters as `options`."""
    entries = wire_messages(request)
    names = {
        str(call.get("id")): str(call["function"].get("name", ""))
        for entry in entries
        for call in entry.get("tool_calls") or []
        if isinstance(call, dict) and isinstance(call.get("function"), dict)
    }
    messages = [_ollama_message(entry, names) for entry in entries]
    body: dict[str, Any] = {"model": request.model.id, "messages": messages, "stream": True}
    options: dict[str, Any] = {}
    num_ctx = ollama_num_ctx(request.model, request.settings)
    if num_ctx:
        options["num_ctx"] = num_ctx
        set_window(request.model, num_ctx, f"sent: num_ctx {num_ctx} to Ollama /api/chat")
    parameters = request.parameters
    limit = parameters.get("max_tokens") or request.settings.get("max_tokens") or request.model.max_output_tokens
    if isinstance(limit, int) and limit > 0:
        options["num_predict"] = limit
    for name in ("temperature", "top_p", "seed", "stop"):
        if name in parameters:
            options[name] = parameters[name]
    if options:
        body["options"] = options
    if request.tools and parameters.get("tool_choice") != "none":
        chosen = parameters.get("tool_choice")
        tools = request.tools
        if chosen and chosen not in TOOL_CHOICE_MODES and request.first_round:
            tools = [tool for tool in tools if tool["name"] == chosen] or tools  # Ollama has no forced choice
        body["tools"] = wire_tools(tools)
    if "reasoning_effort" in parameters:
        body["think"] = parameters["reasoning_effort"] not in ("none", "minimal")
    for extra in (request.settings.get("extra_body"), request.model.extra.get("extra_body")):
        if isinstance(extra, dict):
            body.update(extra)
    return body


def _ollama_message(entry: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """One chat-completions message as `/api/chat` takes it: text content, images as bare base64, tool-call
    arguments as objects, a tool result naming its tool."""
    message: dict[str, Any] = {"role": entry["role"]}
    content = entry.get("content")
    if isinstance(content, list):
        message["content"] = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
        images = [
            str(p["image_url"]["url"]).split("base64,", 1)[-1]
            for p in content
            if p.get("type") == "image_url" and isinstance(p.get("image_url"), dict)
        ]
        if images:
            message["images"] = images
    else:
        message["content"] = content or ""
    calls = entry.get("tool_calls")
    if isinstance(calls, list):
        message["tool_calls"] = [
            {
                "function": {
                    "name": call["function"].get("name", ""),
                    "arguments": _arguments(call["function"].get("arguments")),
                }
            }
            for call in calls
            if isinstance(call.get("function"), dict)
        ]
    if entry["role"] == "tool":
        message["tool_name"] = names.get(str(entry.get("tool_call_id")), "")
    return message


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
