"""The adapter protocol: what a wire-format adapter gives the run loop, and what it gets from it.

An adapter turns one `ChatRequest` into a stream of typed parts. The parts are already decoded: text and
reasoning are separated (inline `<think>` tags included), tool calls arrive complete (fragments assembled,
arguments as one text), usage is normalised. The run loop therefore never sees a wire format, and the scripted
provider can stand in for a real endpoint by yielding the same parts.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..model_info import ModelInfo
from ..secrets import redact
from .request import ChatRequest, Endpoint, ProviderError, output_limit

__all__ = [
    "Adapter",
    "ChatRequest",
    "Endpoint",
    "FinishPart",
    "MalformedEvent",
    "MovedToReasoningPart",
    "ProviderError",
    "ReasoningPart",
    "StreamPart",
    "TextPart",
    "ToolCallPart",
    "UsagePart",
    "expect",
    "output_limit",
    "redact",
    "retry_delay",
    "retry_limit",
]


@dataclass(slots=True)
class TextPart:
    """A fragment of the answer. (Not frozen: one is made per token, and a frozen init costs twice as much.)"""

    text: str


@dataclass(slots=True)
class ReasoningPart:
    """A fragment of the model's reasoning (never part of the answer)."""

    text: str


@dataclass(slots=True)
class MovedToReasoningPart:
    """The answer streamed so far was reasoning after all: a closing `</think>` arrived that nothing opened
    (a template that opens the thought in the prompt). The run loop moves that text to the reasoning channel."""

    text: str = ""


@dataclass(frozen=True, slots=True)
class ToolCallPart:
    """One complete tool call.

    `arguments` is the JSON text the model produced ("" is normalised to "{}"); it is parsed by the tool
    runner, so a malformed text becomes a tool result the model reads instead of an exception here.
    `extra` holds provider fields of the call that must travel back verbatim (for example a Gemini
    `extra_content` thought signature); the run loop stores them in the message's raw `tool_calls` entry.
    """

    id: str
    name: str
    arguments: str = "{}"
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UsagePart:
    """Token usage of the round, as the server reported it, in one shape for every wire format.

    `input_tokens` is the whole prompt the model read — uncached, read from the cache and written to it — on every
    wire (chat completions' `prompt_tokens` already is; Anthropic's `input_tokens` leaves out the cache, so its
    adapter adds `cache_read_input_tokens` and `cache_creation_input_tokens` back). `cached_tokens` are the part
    read from the server's prompt cache, `cache_write_tokens` the part written to it. `cost` is what the server
    said the answer cost in dollars (OpenRouter), and `timings` a local server's own figures (llama.cpp).
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
            "cache_write_tokens": self.cache_write_tokens,
        }
        if self.cost is not None:
            data["cost"] = self.cost
        if self.timings:
            data["timings"] = dict(self.timings)
        return data


@dataclass(frozen=True, slots=True)
class FinishPart:
    """The server said the answer is complete.

    `reason` is the server's finish / stop reason. `meta` is opaque provider data that must go back with
    this message in later requests (Anthropic thinking blocks with their signatures, OpenRouter
    `reasoning_details`); the run loop stores it as `message.meta["provider_data"]`.
    A stream that ends without a `FinishPart` is an incomplete answer.
    """

    reason: str
    meta: dict[str, Any] = field(default_factory=dict)


StreamPart = TextPart | ReasoningPart | MovedToReasoningPart | ToolCallPart | UsagePart | FinishPart


class MalformedEvent(Exception):
    """A stream event whose fields have the wrong types; the message names the event and the field.

    Raised by the adapters' event readers and turned into a `ProviderError` that keeps the answer so far.
    """


def expect(value: Any, kind: type | tuple[type, ...], event: str, field: str, *, optional: bool = False) -> Any:
    """`value` when it has the type the wire format promises (None too when `optional`), else `MalformedEvent`."""
    if value is None and optional:
        return None
    if isinstance(value, kind) and not (isinstance(value, bool) and kind in (int, (int,))):
        return value
    raise MalformedEvent(f"a {event!r} event whose {field} is {type(value).__name__}, not {_names(kind)}")


def _names(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(
        {"str": "text", "int": "a whole number", "dict": "an object", "list": "a list"}.get(k.__name__, k.__name__)
        for k in kinds
    )


@runtime_checkable
class Adapter(Protocol):
    """One provider's wire format. An adapter holds the provider's HTTP client; `aclose` releases it."""

    def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        """The parts of one answer. Raises `ProviderError` (after yielding what arrived) on failure."""
        ...

    async def list_models(self) -> list[ModelInfo]:
        """The models the endpoint reports; capabilities are left at their defaults."""
        ...

    async def aclose(self) -> None: ...


def retry_limit(settings: Mapping[str, Any]) -> int:
    """How many times a failure that may pass is tried again (`max_retries`, default 3)."""
    return _count_setting(settings, "max_retries", 3)


def retry_delay(settings: Mapping[str, Any], attempt: int) -> float:
    """The backoff before retry number `attempt` (0 first): `retry_base_delay` doubled each time, with jitter."""
    base_delay = _seconds_setting(settings, "retry_base_delay", 0.5)
    import random  # here: the request bodies are built before anything is retried (engine.providers.early)

    return float(base_delay * (2**attempt) + random.uniform(0, base_delay / 4))


def _count_setting(settings: Mapping[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _seconds_setting(settings: Mapping[str, Any], key: str, default: float) -> float:
    value = settings.get(key, default)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default
