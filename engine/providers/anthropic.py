"""The Anthropic Messages adapter (protocols.md §C).

`POST {base_url}/messages` (the base URL ends in `/v1`, which is added when missing), SSE with named events.
Differences from chat completions that this module absorbs: the system prompt is a top-level field,
`max_tokens` is required, tool calls are `tool_use` blocks whose input arrives as `input_json_delta`
fragments, tool results are `tool_result` blocks in the next user message, consecutive messages of one role
are merged, `ping` events are skipped, an `error` event can arrive mid-stream, and usage is split between
`message_start` (input) and `message_delta` (output, cumulative).

Thinking blocks (with their signatures) and redacted thinking blocks are returned in `FinishPart.meta`
(`thinking_blocks`) and sent back unchanged, ahead of the tool calls, in later requests to the same provider —
only on assistant messages with tool calls, where the API requires them; other reasoning is not sent back.

The dialog's parameters go out as `max_tokens`, `temperature`, `top_p`, `stop_sequences` and `tool_choice`
("required" is `any`, a tool's name is `{"type": "tool"}` — for llama.cpp's server, which calls any tool it is offered
then, with only that tool offered; forced only in the first round of a run); the API has no
seed or reasoning effort, so those are not sent. Tool calls come out once per id: blocks that repeat an id (a proxy
splitting one call) are merged (`tool_calls.merged_arguments`).

Provider settings read here: `anthropic_version` (default "2023-06-01", which still accepts sampling
parameters), `max_tokens` (else the model's `max_output_tokens`, else 4096), `thinking_budget` (tokens;
1024 or more turns extended thinking on; also per model in `extra["thinking_budget"]`), `extra_body`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from ..attachments.errors import AttachmentError
from ..model_info import ModelInfo
from ._httpx import httpx
from .anthropic_body import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_TOKENS,
    DEFAULT_VERSION,
    base_url_of,
    build_body,
    mark_cache_breakpoints,
    messages_url,
    own_headers,
    wire_messages,
)
from .base import (
    ChatRequest,
    FinishPart,
    MalformedEvent,
    ReasoningPart,
    StreamPart,
    TextPart,
    ToolCallPart,
    UsagePart,
    expect,
)
from .capabilities import takes_documents, takes_named_tool_choice
from .http import HTTPAdapter, error_text, is_permanent_error, transport_error
from .sse import sse_batches
from .tool_calls import merged_arguments

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_VERSION",
    "AnthropicAdapter",
    "build_body",
    "mark_cache_breakpoints",
    "wire_messages",
]


class AnthropicAdapter(HTTPAdapter):
    """One Anthropic Messages endpoint; holds its HTTP client."""

    @property
    def base_url(self) -> str:
        return base_url_of(self.provider)

    def _own_headers(self) -> dict[str, str]:
        return own_headers(self.provider)

    async def list_models(self) -> list[ModelInfo]:
        entries = await self._model_entries(f"{self.base_url}/models", "data")
        return [
            ModelInfo(str(entry["id"]), name=str(entry.get("display_name") or ""))
            for entry in entries
            if isinstance(entry, dict) and entry.get("id")
        ]

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        try:
            body = build_body(
                request,
                named_tool_choice=takes_named_tool_choice(self.provider),
                documents=takes_documents(self.provider),
            )
        except AttachmentError as error:  # an image no scaling brings under the limits: nothing was sent
            raise self.http.fail(error.message) from None
        response = await self.http.open_stream(messages_url(self.provider), body, self._headers("text/event-stream"))
        try:
            content_type = response.headers.get("content-type", "")
            if "event-stream" not in content_type:
                raise self.http.fail(
                    f"the server answered with {content_type or 'no content type'!r} instead of an event stream; "
                    "is the base URL an Anthropic Messages endpoint?"
                )
            async for part in self._events(response):
                yield part
        finally:
            await response.aclose()

    async def _events(self, response: httpx.Response) -> AsyncGenerator[StreamPart, None]:
        message = _MessageStream()
        loads = json.loads
        try:
            async for batch in sse_batches(response.aiter_text()):
                for event_name, data in batch:
                    if not data:
                        continue
                    try:
                        payload = loads(data)
                    except ValueError:
                        raise self.http.fail(
                            f"the server sent an event that is not JSON ({data[:60]!r}); the answer so far was kept"
                        ) from None
                    if type(payload) is not dict:
                        continue
                    kind = payload.get("type") or event_name
                    if kind == "error":
                        words = error_text(payload)
                        raise self.http.fail(
                            f"the server reported an error mid-answer: {words or 'no details'}",
                            retryable=not is_permanent_error(None, words),
                            in_stream=True,
                        )
                    try:
                        parts = message.handle(str(kind), payload)
                    except MalformedEvent as malformed:
                        raise self.http.fail(f"the server sent {malformed}; the answer so far was kept") from None
                    for part in parts:
                        yield part
                    if message.stopped:
                        break
                if message.stopped:
                    break
        except httpx.HTTPError as error:
            raise self.http.fail(transport_error(error, self.provider) + "; the answer so far was kept") from None
        for part in message.finish():
            yield part


class _MessageStream:
    """The state of one streamed message: open content blocks, thinking blocks to echo back, usage, stop reason."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.thinking_blocks: list[dict[str, Any]] = []
        #: Tool calls by id, in order: blocks that repeat an id are one call (see `tool_calls`).
        self.calls: dict[str, dict[str, Any]] = {}
        self.input_tokens = self.cached_tokens = self.cache_write_tokens = self.output_tokens = 0
        self.saw_usage = False
        self.stop_reason = ""
        self.stopped = False

    def handle(self, kind: str, payload: dict[str, Any]) -> list[StreamPart]:
        """The parts one event yields; `ping` and event types this version does not know yield none.

        Every field read is type-checked: a wrong type is a `MalformedEvent` naming the event, not a TypeError
        deep inside (an index that is an object once raised "unhashable type").
        """
        if kind == "content_block_delta":
            index = expect(payload.get("index"), int, kind, "index")
            return self._delta(index, expect(payload.get("delta"), dict, kind, "delta"))
        if kind == "content_block_start":
            index = expect(payload.get("index"), int, kind, "index")
            content_block = expect(payload.get("content_block"), dict, kind, "content_block")
            block = self.blocks[index] = _block(content_block, kind)
            text = expect(content_block.get("text"), str, kind, "content_block.text", optional=True)
            thinking = expect(content_block.get("thinking"), str, kind, "content_block.thinking", optional=True)
            if block["type"] == "text" and text:
                return [TextPart(text)]
            if block["type"] == "thinking" and thinking:
                block["thinking"].append(thinking)
                return [ReasoningPart(thinking)]
        elif kind == "content_block_stop":
            index = expect(payload.get("index"), int, kind, "index")
            return self._stop_block(self.blocks.pop(index, None))
        elif kind == "message_start":
            message = expect(payload.get("message"), dict, kind, "message", optional=True) or {}
            usage = expect(message.get("usage"), dict, kind, "message.usage", optional=True) or {}
            self._read_input(usage)
            self.output_tokens = _int(usage.get("output_tokens"))
            self.saw_usage = bool(usage)
        elif kind == "message_delta":
            delta = expect(payload.get("delta"), dict, kind, "delta", optional=True) or {}
            reason = expect(delta.get("stop_reason"), str, kind, "delta.stop_reason", optional=True)
            self.stop_reason = reason or self.stop_reason
            usage = expect(payload.get("usage"), dict, kind, "usage", optional=True) or {}
            if usage:
                self.saw_usage = True
                self.output_tokens = _int(usage.get("output_tokens")) or self.output_tokens  # cumulative
                self._read_input(usage)
        elif kind == "message_stop":
            self.stopped = True
        return []

    def _read_input(self, usage: dict[str, Any]) -> None:
        """The prompt's counts, where an event states them (`message_start`, and cumulatively `message_delta`).

        Anthropic's `input_tokens` are the tokens after the last cache breakpoint only; the whole prompt, as every
        other wire counts it, adds what was read from the cache and what was written to it."""
        if "input_tokens" in usage:
            self.input_tokens = _int(usage.get("input_tokens"))
        if "cache_read_input_tokens" in usage:
            self.cached_tokens = _int(usage.get("cache_read_input_tokens"))
        if "cache_creation_input_tokens" in usage:
            self.cache_write_tokens = _int(usage.get("cache_creation_input_tokens"))

    def _delta(self, index: int, delta: dict[str, Any]) -> list[StreamPart]:
        kind = "content_block_delta"
        delta_type = delta.get("type")
        if delta_type == "text_delta":
            text = expect(delta.get("text"), str, kind, "delta.text", optional=True)
            return [TextPart(text)] if text else []
        if delta_type == "thinking_delta":
            thought = expect(delta.get("thinking"), str, kind, "delta.thinking", optional=True)
            if not thought:
                return []
            self.blocks.setdefault(index, _block({"type": "thinking"}, kind))["thinking"].append(thought)
            return [ReasoningPart(thought)]
        if delta_type == "input_json_delta":
            partial = expect(delta.get("partial_json"), str, kind, "delta.partial_json", optional=True)
            self.blocks.setdefault(index, _block({"type": "tool_use"}, kind))["json"].append(partial or "")
        elif delta_type == "signature_delta":
            block = self.blocks.setdefault(index, _block({"type": "thinking"}, kind))
            block["signature"] += expect(delta.get("signature"), str, kind, "delta.signature", optional=True) or ""
        return []

    def _stop_block(self, block: dict[str, Any] | None) -> list[StreamPart]:
        if block is None:
            return []
        if block["type"] in ("tool_use", "server_tool_use"):
            arguments = "".join(block["json"]).strip()
            if not arguments:
                arguments = json.dumps(block["input"]) if block["input"] else ""
            key = block["id"] or f"#{len(self.calls)}"
            call = self.calls.setdefault(key, {"id": block["id"], "name": block["name"], "pieces": []})
            call["name"] = call["name"] or block["name"]
            call["pieces"].append(arguments)
            return []
        if block["type"] == "thinking" and block["signature"]:
            thought = "".join(block["thinking"])
            self.thinking_blocks.append({"type": "thinking", "thinking": thought, "signature": block["signature"]})
        elif block["type"] == "redacted_thinking":
            self.thinking_blocks.append({"type": "redacted_thinking", "data": block["data"]})
        return []

    def finish(self) -> list[StreamPart]:
        """The tool calls, usage, and the finish part only when `message_stop` arrived (else incomplete)."""
        parts: list[StreamPart] = [
            ToolCallPart(call["id"], call["name"], merged_arguments(call["pieces"])) for call in self.calls.values()
        ]
        if self.saw_usage:
            whole_prompt = self.input_tokens + self.cached_tokens + self.cache_write_tokens
            parts.append(UsagePart(whole_prompt, self.output_tokens, 0, self.cached_tokens, self.cache_write_tokens))
        if self.stopped:
            meta = {"thinking_blocks": self.thinking_blocks} if self.thinking_blocks else {}
            parts.append(FinishPart(self.stop_reason or "end_turn", meta))
        return parts


def _block(content_block: dict[str, Any], event: str) -> dict[str, Any]:
    def text(field: str) -> str:
        return str(expect(content_block.get(field), str, event, f"content_block.{field}", optional=True) or "")

    return {
        "type": text("type"),
        "id": text("id"),
        "name": text("name"),
        "input": expect(content_block.get("input"), dict, event, "content_block.input", optional=True) or {},
        "json": [],
        "thinking": [],
        "signature": text("signature"),
        "data": content_block.get("data", ""),
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
