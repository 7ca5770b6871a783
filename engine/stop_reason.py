"""Why an answer that stopped for length stopped: the request's output limit, or a full context window.

Both wires give one word for both: "length" (chat completions) or "max_tokens" (Messages). llama-server stops a
slot when prompt plus answer reach its context (`n_ctx`) with that same word — after 34 of 200 allowed tokens,
say — and "cut short: output limit reached" then tells the user to raise the wrong number. The reading, from the
server's usage (an estimate is not trusted for this), the limit the request carried and the context window when
it is known:

- the answer reached the request's limit: the output limit;
- the context window is known: full when prompt plus answer reached it, else the server's own output limit;
- otherwise an answer that stopped below the request's limit ran out of context (nothing else ends a slot early).

The run loop records the reading as the message's `finish_reason` — "model_context_window_exceeded", the
Messages API's own name, when the context filled — and keeps the server's word in `server_finish_reason`.
"""

from __future__ import annotations

from .providers.base import UsagePart

__all__ = ["CONTEXT_FULL", "LENGTH_REASONS", "stop_reason"]

CONTEXT_FULL = "model_context_window_exceeded"
LENGTH_REASONS = frozenset({"length", "max_tokens"})


def stop_reason(reason: str, usage: UsagePart | None, *, output_limit: int, context_window: int) -> str:
    """`reason`, or `CONTEXT_FULL` when a length stop was the context filling (see the module's rules).

    `usage.input_tokens` is the whole prompt on both wires (the Messages adapter adds its cache reads and writes),
    so nothing is added to it here."""
    if reason not in LENGTH_REASONS or usage is None:
        return reason
    if output_limit > 0 and usage.output_tokens >= output_limit:
        return reason
    if context_window > 0:
        return CONTEXT_FULL if usage.input_tokens + usage.output_tokens >= context_window else reason
    return CONTEXT_FULL if output_limit > 0 else reason
