"""A server's "the request does not fit the context window", in any of its wordings, as one kind of failure.

Each server words it its own way; every wording below is one a server sends (tests/engine/context/test_overflow.py
holds each as the body its server returns):

- llama.cpp: `exceed_context_size_error` — "request (724 tokens) exceeds the available context size (512 tokens)";
- vLLM: "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (…)", or
  "… your request has 2000 input tokens …", or "The decoder prompt (length 5000) is longer than the maximum model
  length of 4096";
- OpenAI (and DeepSeek, Groq): `context_length_exceeded` — "This model's maximum context length is 128000 tokens.
  However, your messages resulted in 130000 tokens";
- Anthropic: "prompt is too long: 210000 tokens > 200000 maximum", or "input length and `max_tokens` exceed
  context limit: 197000 + 8192 > 200000";
- OpenRouter: "This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens";
- Ollama: "input length exceeds the context length", "prompt too long; exceeded max context length by 100 tokens";
- LM Studio: "… the model is loaded with context length of only 4096 tokens, which is not enough".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Overflow", "overflow_in"]


@dataclass(frozen=True, slots=True)
class Overflow:
    """What the server said: its window and the request's size, in tokens (0 where it did not say)."""

    window: int = 0
    request_tokens: int = 0


_PHRASES = (
    "exceed_context_size_error",
    "context_length_exceeded",
    "exceeds the available context size",
    "maximum context length",
    "prompt is too long",
    "exceed context limit",
    "longer than the maximum model length",
    "exceeds the context length",
    "exceeded max context length",
    "context length of only",
    "context window",
)

_WINDOW = (
    re.compile(r"available context size \((\d+) tokens\)"),
    re.compile(r"maximum context length is (\d+) tokens"),
    re.compile(r"> (\d+) maximum"),
    re.compile(r"> (\d+),? decrease"),
    re.compile(r"maximum model length of (\d+)"),
    re.compile(r"context length of only (\d+)"),
    re.compile(r'"n_ctx":\s*(\d+)'),
)
_REQUEST = (
    re.compile(r"request \((\d+) tokens\) exceeds"),
    re.compile(r"you requested (?:about )?(\d+) tokens"),
    re.compile(r"your messages resulted in (\d+) tokens"),
    re.compile(r"your request has (\d+) input tokens"),
    re.compile(r"prompt is too long: (\d+) tokens"),
    re.compile(r"context limit: (\d+) \+ (\d+) >"),
    re.compile(r"decoder prompt \(length (\d+)\)"),
    re.compile(r'"n_prompt_tokens":\s*(\d+)'),
)


def overflow_in(message: str) -> Overflow | None:
    """The overflow a failure's text describes, or None when it is about something else."""
    lowered = message.lower()
    if not any(phrase in lowered for phrase in _PHRASES):
        return None
    if "context window" in lowered and not any(word in lowered for word in ("exceed", "too long", "does not fit")):
        return None
    window = _first(_WINDOW, lowered)
    request = 0
    for pattern in _REQUEST:
        found = pattern.search(lowered)
        if found:
            request = sum(int(group) for group in found.groups())
            break
    exceeded_by = re.search(r"exceeded max context length by (\d+) tokens", lowered)
    if exceeded_by and window and not request:
        request = window + int(exceeded_by.group(1))
    return Overflow(window, request)


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> int:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return 0
