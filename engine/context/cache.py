"""The cache-break note: when a turn re-sends a prefix the last turn had cached and the server reads less of it
from its cache, which change broke the prefix and how many tokens were read (and written) again.

The server caches a request's prefix up to its last breakpoint (Anthropic's `cache_control`; OpenAI and
DeepSeek cache prefixes by themselves); a change anywhere in it — an edited message, a skill added or changed
(the system prompt), another tool list — makes everything after the change a miss. The watcher keeps, per
dialog, what the last round sent and how much of it was cached; a branch (an edit, a regeneration) is compared
with the dialog it was made from. A prefix older than the cache's life (five minutes) simply expired: no note.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..message import Message, Role
from .counting import MessageKey, _tools_text, message_key

__all__ = ["CACHE_LIFETIME", "CacheWatch", "watch_for"]

#: Seconds a cached prefix lives without being read (Anthropic's default; OpenAI's is five to ten minutes).
CACHE_LIFETIME = 300.0
#: Prefixes shorter than this are not cached by any server: a smaller drop says nothing.
MINIMUM_CACHED = 1024


@dataclass
class _Sent:
    system: str
    tools: str
    keys: list[MessageKey]
    cached: int
    at: float


class CacheWatch:
    """What the last round of each dialog sent and had in the cache (one watch per provider and model)."""

    def __init__(self) -> None:
        self._sent: dict[str, _Sent] = {}

    def after_round(
        self,
        dialog_id: str,
        parent_id: str,
        system: str,
        tools: Sequence[dict[str, Any]],
        messages: Sequence[Message],
        cached_tokens: int,
        cache_write_tokens: int,
        *,
        now: float | None = None,
    ) -> tuple[str, int] | None:
        """Record this round; returns (which change broke the cache, tokens no longer read from it) when the
        previous round of this dialog (or of the one it branched from) had more cached than this one read."""
        moment = time.time() if now is None else now
        keys = [message_key(message) for message in messages]
        tools_text = _tools_text(tools)
        before = self._sent.get(dialog_id) or self._sent.get(parent_id)
        self._sent[dialog_id] = _Sent(system, tools_text, keys, cached_tokens + cache_write_tokens, moment)
        if before is None or before.cached < MINIMUM_CACHED or moment - before.at > CACHE_LIFETIME:
            return None
        lost = before.cached - cached_tokens
        if lost < MINIMUM_CACHED // 2 or cached_tokens >= before.cached * 0.9:
            return None
        return _cause(before, system, tools_text, keys, messages), lost


def _cause(before: _Sent, system: str, tools: str, keys: list[MessageKey], messages: Sequence[Message]) -> str:
    if before.system != system:
        return "the system prompt changed (a skill was added, removed or edited)"
    if before.tools != tools:
        return "the tool list changed"
    for index, (old, new) in enumerate(zip(before.keys, keys, strict=False)):
        if old != new:
            message = messages[index]
            who = {Role.USER: "your message", Role.PROMPT: "your message", Role.ASSISTANT: "the answer"}.get(
                message.role, "the tool result"
            )
            words = " ".join(message.content.split()[:6])
            return f"{who} at position {index + 1} changed" + (f" (“{words}…”)" if words else "")
    if len(keys) < len(before.keys):
        return "earlier messages were left out of the request"
    return "the server did not read its cache (it may have been evicted)"


_WATCHES: dict[tuple[str, str], CacheWatch] = {}


def watch_for(provider_id: str, model_id: str) -> CacheWatch:
    key = (provider_id, model_id)
    watch = _WATCHES.get(key)
    if watch is None:
        watch = _WATCHES[key] = CacheWatch()
    return watch
