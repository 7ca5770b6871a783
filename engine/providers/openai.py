"""The OpenAI-compatible chat-completions adapter: OpenAI, DeepSeek, OpenRouter, Groq, vLLM, llama.cpp, Ollama, ...

`POST {base_url}/chat/completions` with `stream: true`, read as SSE (protocols.md §A, §B). What it handles:
- content deltas; reasoning from `reasoning_content` (DeepSeek, llama.cpp, SGLang), `reasoning` (vLLM,
  OpenRouter, Ollama) and inline `<think>` tags (split across chunks; `ModelInfo.starts_in_thinking` for
  models whose template opens the thought);
- tool-call fragments assembled by index (id and name from the first fragment, arguments concatenated,
  "" meaning {}), tolerating a whole call in one chunk, repeated ids, a missing index and
  `finish_reason: "stop"` after tool calls (what counts is whether calls arrived);
- usage via `stream_options.include_usage`, dropped for good when a server rejects it;
- errors: HTTP status bodies of every common shape, an `error` object mid-stream, a data line that is not
  JSON, a stream that ends without a finish reason (no `FinishPart`: the run loop marks it incomplete);
- a server that ignores `stream: true` and answers one JSON document.

The dialog's parameters (`engine.parameters`) go out as `max_tokens` (under `max_tokens_field`), `temperature`,
`top_p`, `seed`, `stop`, `reasoning_effort` and `tool_choice` (a tool's name becomes the named-function form, or,
for llama.cpp's server, which takes only a string there, "required" with only that tool offered), only when set;
a forced tool choice — also one set through `extra_body` — becomes "auto" after the first round.

Provider settings read here (besides the retry settings of `http.py`): `stream_usage` (default True),
`max_tokens` and `max_tokens_field` ("max_tokens" or "max_completion_tokens"), `extra_body` (merged into
every request, e.g. `{"reasoning_effort": "high"}`), `send_reasoning_with_tool_calls` (DeepSeek thinking mode:
the reasoning of assistant messages with tool calls is sent back as `reasoning_field`, default
"reasoning_content"). A model's `extra["extra_body"]` is merged too.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

from ..attachments.errors import AttachmentError
from ..model_info import ModelInfo
from ._httpx import httpx
from .base import (
    ChatRequest,
    Endpoint,
    FinishPart,
    MalformedEvent,
    ProviderError,
    ReasoningPart,
    StreamPart,
    TextPart,
    ToolCallPart,
    UsagePart,
    expect,
)
from .capabilities import from_listing, takes_named_tool_choice
from .http import HTTPAdapter, error_text, is_permanent_error, transport_error
from .openai_body import build_body, chat_url, own_headers, wire_messages
from .sse import sse_batches
from .think import PIECE_PARTS, ThinkSplitter
from .tool_calls import merged_arguments
from .windows import set_window, window_from_listing

__all__ = ["OpenAIAdapter", "build_body", "wire_messages"]

_DECODER = json.JSONDecoder()


class OpenAIAdapter(HTTPAdapter):
    """One OpenAI-compatible endpoint; holds its HTTP client."""

    def __init__(self, provider: Endpoint) -> None:
        super().__init__(provider)
        self.stream_usage = provider.settings.get("stream_usage", True) is not False

    def _own_headers(self) -> dict[str, str]:
        return own_headers(self.provider)

    async def list_models(self) -> list[ModelInfo]:
        entries = await self._model_entries(f"{self.provider.base_url}/models", "data", "models")
        models = []
        for entry in entries:
            if isinstance(entry, dict):
                model_id = entry.get("id") or entry.get("name") or entry.get("model")
                if isinstance(model_id, str) and model_id:
                    label = str(entry.get("display_name") or entry.get("name") or "")
                    model = from_listing(ModelInfo(model_id, name=label if label != model_id else ""), entry)
                    if isinstance(entry.get("owned_by"), str) and entry["owned_by"]:
                        model.extra["owned_by"] = entry["owned_by"]
                    listed_window = window_from_listing(entry)
                    if listed_window is not None:
                        set_window(model, *listed_window)
                    models.append(model)
        return models

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        try:
            body = build_body(
                request, stream_usage=self.stream_usage, named_tool_choice=takes_named_tool_choice(self.provider)
            )
        except AttachmentError as error:  # an image no scaling brings under the limits: nothing was sent
            raise self.http.fail(error.message) from None
        url = chat_url(self.provider)
        headers = self._headers("text/event-stream")
        try:
            response = await self.http.open_stream(url, body, headers)
        except ProviderError as error:
            if not (self.stream_usage and error.status in (400, 422) and _about_stream_options(error.message)):
                raise
            self.stream_usage = False  # this server does not take stream_options: never send it again
            body.pop("stream_options", None)
            response = await self.http.open_stream(url, body, headers)
        try:
            content_type = response.headers.get("content-type", "")
            if "event-stream" not in content_type:
                if "json" not in content_type:
                    raise self.http.fail(
                        f"the server answered with {content_type or 'no content type'!r} instead of an event "
                        "stream; is the base URL an OpenAI-compatible endpoint?"
                    )
                async for part in self._whole(response, request):
                    yield part
                return
            # One generator level and batched SSE events: this loop runs once per token (see bench/stream_overhead.py).
            splitter = ThinkSplitter(starts_in_thinking=request.model.starts_in_thinking)
            calls = _CallAssembler()
            details = _ReasoningDetails()
            finish = ""
            usage: UsagePart | None = None
            decode = _DECODER.raw_decode
            done = False
            try:
                async for events in sse_batches(response.aiter_text()):
                    for _, data in events:
                        if not data:
                            continue
                        if data.startswith("[DONE]"):
                            done = True
                            break
                        try:
                            chunk, end = decode(data)  # json.loads minus two regex scans: 2 us a token
                            if end != len(data):
                                raise ValueError(data)
                        except ValueError:
                            chunk = _loads_or_invalid(data)  # whitespace around the value is fine, the rest is not
                        if chunk is _INVALID:
                            raise self.http.fail(
                                f"the server sent an event that is not JSON ({_preview(data)}); "
                                "the answer so far was kept"
                            ) from None
                        if type(chunk) is not dict:
                            continue
                        if chunk.get("error"):
                            raise self._stream_error("the server reported an error mid-answer", chunk)
                        choices = chunk.get("choices")
                        if choices:
                            if type(choices) is not list or type(choices[0]) is not dict:
                                raise MalformedEvent(f"a chunk whose choices are {type(choices).__name__}")
                            choice = choices[0]
                            delta = choice.get("delta") or choice.get("message") or {}
                            if type(delta) is not dict:
                                raise MalformedEvent(f"a chunk whose delta is {type(delta).__name__}")
                            content = delta.get("content")
                            if content is not None and type(content) is not str:
                                expect(content, (str, list), "chunk", "delta.content")
                            if content and type(content) is str:
                                if splitter.passthrough or (splitter.watching and "<" not in content):
                                    yield TextPart(content)  # the per-token path: no tag can start here
                                else:
                                    for kind, text in splitter.feed(content):
                                        yield PIECE_PARTS[kind](text)
                            if len(delta) > 1 or content is None:
                                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                                expect(reasoning, str, "chunk", "delta.reasoning", optional=True)
                                if reasoning:
                                    splitter.server_separates_reasoning()
                                    yield ReasoningPart(reasoning)
                                tool_calls = delta.get("tool_calls")
                                if tool_calls:
                                    calls.add(tool_calls)
                                reasoning_details = delta.get("reasoning_details")
                                if reasoning_details:
                                    details.add(reasoning_details)
                            reason = expect(choice.get("finish_reason"), str, "chunk", "finish_reason", optional=True)
                            if reason:
                                if reason == "error":
                                    raise self._stream_error("the provider stopped with an error mid-answer", chunk)
                                finish = str(reason)
                        chunk_usage = chunk.get("usage")
                        if chunk_usage:
                            usage = _usage(chunk_usage, chunk.get("timings"))
                        elif finish and usage is None and chunk.get("timings"):
                            timings = chunk["timings"]  # llama.cpp without stream_options: its own counts
                            usage = _timings_usage(timings)
                    if done:
                        break
            except httpx.HTTPError as error:
                raise self.http.fail(transport_error(error, self.provider) + "; the answer so far was kept") from None
            except MalformedEvent as malformed:
                raise self.http.fail(f"the server sent {malformed}; the answer so far was kept") from None
            for kind, text in splitter.flush():
                yield PIECE_PARTS[kind](text)
            for call in calls.finished():
                yield call
            if usage is not None:
                yield usage
            if finish:
                yield FinishPart(finish, {"reasoning_details": details.finished()} if details else {})
        finally:
            await response.aclose()

    def _stream_error(self, what: str, chunk: dict[str, Any]) -> ProviderError:
        """An error event inside the stream: retryable (by the run loop, before any content) unless its words say
        the request itself is wrong."""
        words = error_text(chunk)
        return self.http.fail(
            f"{what}: {words or 'no details'}", retryable=not is_permanent_error(None, words), in_stream=True
        )

    async def _whole(self, response: httpx.Response, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        """A server that ignored `stream: true`: one completion document."""
        try:
            raw = await response.aread()
            document = json.loads(raw)
        except httpx.HTTPError as error:
            raise self.http.fail(transport_error(error, self.provider)) from None
        except ValueError:
            raise self.http.fail("the server's answer is not valid JSON") from None
        if not isinstance(document, dict):
            raise self.http.fail("the server's answer has an unexpected shape")
        if document.get("error"):
            raise self.http.fail(f"the server reported an error: {error_text(document)}")
        choices = document.get("choices") or [{}]
        choice = choices[0] if isinstance(choices[0], dict) else {}
        message = choice.get("message") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            yield ReasoningPart(reasoning)
        content = message.get("content")
        if isinstance(content, str) and content:
            splitter = ThinkSplitter(starts_in_thinking=request.model.starts_in_thinking)
            if isinstance(reasoning, str) and reasoning:
                splitter.server_separates_reasoning()
            for kind, text in [*splitter.feed(content), *splitter.flush()]:
                yield PIECE_PARTS[kind](text)
        calls = _CallAssembler()
        if isinstance(message.get("tool_calls"), list):
            try:
                calls.add(message["tool_calls"])
            except MalformedEvent as malformed:
                raise self.http.fail(f"the server sent {malformed}") from None
        for call in calls.finished():
            yield call
        if isinstance(document.get("usage"), dict):
            yield _usage(document["usage"], document.get("timings"))
        if choice.get("finish_reason"):
            yield FinishPart(str(choice["finish_reason"]))


class _CallAssembler:
    """Tool-call fragments to complete calls, keyed by index (or id, or order when a server omits the index).

    Fragments that repeat a call's id belong to that call even under another index (a proxy split one call
    into several with the same id): their argument texts are merged, see `merged_arguments`.
    """

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}
        self._by_id: dict[str, int] = {}

    def add(self, fragments: Any) -> None:
        """Merge a chunk's `tool_calls`; a field of the wrong type is a `MalformedEvent`."""
        event = "chunk"
        for fragment in expect(fragments, list, event, "delta.tool_calls"):
            expect(fragment, dict, event, "a tool_calls entry")
            call_id = expect(fragment.get("id"), str, event, "tool_calls[].id", optional=True) or ""
            index = expect(fragment.get("index"), int, event, "tool_calls[].index", optional=True)
            if call_id and call_id in self._by_id:
                index = self._by_id[call_id]  # a repeated id is the same call, whatever index came with it
            elif index is None:
                # no index and no id: the continuation of the last call
                index = len(self._calls) if call_id or not self._calls else max(self._calls)
            entry = self._calls.get(index)
            if entry is None:
                entry = self._calls[index] = {"id": "", "name": "", "arguments": [], "extra": {}}
            if call_id and not entry["id"]:
                entry["id"] = str(call_id)
                self._by_id[entry["id"]] = index
            function = expect(fragment.get("function"), dict, event, "tool_calls[].function", optional=True) or {}
            name = expect(function.get("name"), str, event, "tool_calls[].function.name", optional=True)
            if name and not entry["name"]:
                entry["name"] = name
            arguments = expect(
                function.get("arguments"), (str, dict), event, "tool_calls[].function.arguments", optional=True
            )
            if isinstance(arguments, str):
                entry["arguments"].append(arguments)
            elif isinstance(arguments, dict):  # some servers send the arguments as an object
                entry["arguments"] = [json.dumps(arguments, ensure_ascii=False)]
            for key, value in fragment.items():
                if key not in ("index", "id", "type", "function"):
                    entry["extra"][key] = value

    def finished(self) -> list[ToolCallPart]:
        calls = []
        for index in sorted(self._calls):
            entry = self._calls[index]
            if not entry["name"]:
                continue
            arguments = merged_arguments(entry["arguments"])
            calls.append(ToolCallPart(entry["id"], entry["name"], arguments, entry["extra"]))
        return calls


class _ReasoningDetails:
    """OpenRouter `reasoning_details` fragments, merged per (type, index) so they can go back unchanged."""

    def __init__(self) -> None:
        self._items: dict[tuple[str, int], dict[str, Any]] = {}

    def __bool__(self) -> bool:
        return bool(self._items)

    def add(self, fragments: Any) -> None:
        if not isinstance(fragments, list):
            return
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            index = fragment.get("index", 0)
            key = (str(fragment.get("type", "")), index if isinstance(index, int) else 0)
            item = self._items.get(key)
            if item is None:
                self._items[key] = dict(fragment)
                continue
            for field, value in fragment.items():
                if field in ("text", "summary", "data") and isinstance(value, str) and isinstance(item.get(field), str):
                    item[field] += value
                elif value is not None:
                    item[field] = value

    def finished(self) -> list[dict[str, Any]]:
        return list(self._items.values())


def _usage(data: Any, timings: Any = None) -> UsagePart:
    """Usage as chat completions report it: `prompt_tokens` is the whole prompt, the cached part in
    `prompt_tokens_details.cached_tokens` (OpenAI, llama.cpp, OpenRouter), `prompt_cache_hit_tokens` (DeepSeek) or
    llama.cpp's `timings.cache_n`; what was written to a cache in `prompt_tokens_details.cache_write_tokens`
    (OpenRouter, for models that bill it); OpenRouter's `cost` in dollars."""
    if not isinstance(data, dict):
        return UsagePart()
    completion_details = data.get("completion_tokens_details")
    prompt_details = data.get("prompt_tokens_details")
    if not isinstance(completion_details, dict):
        completion_details = {}
    if not isinstance(prompt_details, dict):
        prompt_details = {}
    local = _timings(timings)
    cached = _int(prompt_details.get("cached_tokens")) or _int(data.get("prompt_cache_hit_tokens"))
    cost = data.get("cost")
    return UsagePart(
        input_tokens=_int(data.get("prompt_tokens")),
        output_tokens=_int(data.get("completion_tokens")),
        reasoning_tokens=_int(completion_details.get("reasoning_tokens")),
        cached_tokens=cached or int(local.get("cache_n", 0)),
        cache_write_tokens=_int(prompt_details.get("cache_write_tokens")),
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) and cost >= 0 else None,
        timings=local,
    )


def _timings_usage(timings: Any) -> UsagePart:
    """llama.cpp's `timings` alone (a server asked without `stream_options`): prompt = evaluated + cached."""
    local = _timings(timings)
    prompt = int(local.get("prompt_n", 0) + local.get("cache_n", 0))
    return UsagePart(
        input_tokens=prompt,
        output_tokens=int(local.get("predicted_n", 0)),
        cached_tokens=int(local.get("cache_n", 0)),
        timings=local,
    )


#: The figures of llama.cpp's `timings` kept with an answer: tokens evaluated, read from its cache, written, and
#: the milliseconds and speed of each half.
_TIMING_FIELDS = ("prompt_n", "cache_n", "prompt_ms", "predicted_n", "predicted_ms", "predicted_per_second")


def _timings(data: Any) -> dict[str, float]:
    if not isinstance(data, dict):
        return {}
    return {
        name: value
        for name in _TIMING_FIELDS
        if isinstance(value := data.get(name), int | float) and not isinstance(value, bool) and value >= 0
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


_INVALID = object()


def _loads_or_invalid(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return _INVALID


def _about_stream_options(message: str) -> bool:
    lowered = message.lower()
    return any(word in lowered for word in ("stream_options", "include_usage", "extra inputs", "extra_forbidden"))


def _preview(data: str, limit: int = 60) -> str:
    flat = " ".join(data.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")
