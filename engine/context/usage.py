"""What one answer used, read back from its message: tokens in (one rule for every wire), cache, output, cost.

An answer's `meta["usage"]` is `UsagePart.to_json()` plus what the run loop adds: `answer` (an id that copies of the
message in branches keep, so an answer is counted once however many branches hold it), `at` (when it was
answered) and `estimated` (the client counted because the server reported nothing).

The one rule for "tokens in": the whole prompt the model read, cache reads and writes included — what chat
completions call `prompt_tokens` and what Anthropic splits into `input_tokens`, `cache_read_input_tokens` and
`cache_creation_input_tokens`. Answers stored before the rule (no `cache_write_tokens` key) hold the adapter's
figure as it was; on Anthropic that left the cache out, and there is no telling by how much for a cache write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..message import Message

__all__ = ["AnswerUsage", "answer_usage", "tokens_in"]


@dataclass(frozen=True, slots=True)
class AnswerUsage:
    """One answer's figures. `input_tokens` is the whole prompt (cached and written parts included)."""

    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    #: Dollars the server said it cost (OpenRouter); None when it did not say.
    reported_cost: float | None = None
    estimated: bool = False
    answer_id: str = ""
    at: float = 0.0
    provider_id: str = ""
    model_id: str = ""

    @property
    def uncached_input_tokens(self) -> int:
        """The prompt tokens read neither from nor into a cache (billed at the plain input price)."""
        return max(0, self.input_tokens - self.cached_tokens - self.cache_write_tokens)


def tokens_in(usage: Mapping[str, Any]) -> int:
    """Tokens in, by the one rule, from a message's `meta["usage"]` (or a `UsagePart.to_json()`)."""
    return _count(usage.get("input_tokens"))


def answer_usage(message: Message) -> AnswerUsage | None:
    """The answer's usage, or None for a message that carries none (a question, a tool result)."""
    usage = message.meta.get("usage")
    if not isinstance(usage, Mapping):
        return None
    cost, at = _number(usage.get("cost")), _number(usage.get("at"))
    return AnswerUsage(
        input_tokens=tokens_in(usage),
        cached_tokens=_count(usage.get("cached_tokens")),
        cache_write_tokens=_count(usage.get("cache_write_tokens")),
        output_tokens=_count(usage.get("output_tokens")),
        reasoning_tokens=_count(usage.get("reasoning_tokens")),
        reported_cost=cost,
        estimated=bool(usage.get("estimated")),
        answer_id=str(usage.get("answer") or ""),
        at=at or 0.0,
        provider_id=str(message.meta.get("provider_id") or ""),
        model_id=str(message.meta.get("model_id") or ""),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None
