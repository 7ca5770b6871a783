"""Function ids for MCP tools: `server__tool`, within the chat APIs' rule `^[a-zA-Z0-9_-]{1,64}$`.

MCP tool names may contain dots, slashes or spaces and two servers may offer a tool of the same name, so the
id the model sees is derived, and the manager keeps the way back to the real server and tool name. The
derivation is deterministic (same servers and tools, same ids), so ids stay stable across the rounds of a run
and across runs of a dialog.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_ID_LENGTH = 64
SEPARATOR = "__"
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]+")


def sanitise(text: str) -> str:
    """`text` with every run of characters outside `[A-Za-z0-9_-]` turned into one `_` ("" stays "x")."""
    cleaned = _NOT_ALLOWED.sub("_", text)
    return cleaned or "x"


def _fit(base: str, server: str, tool: str) -> str:
    """Shorten an over-long id, keeping its start readable and its end unique (a hash of the real names)."""
    if len(base) <= MAX_ID_LENGTH:
        return base
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{base[: MAX_ID_LENGTH - len(digest) - 1]}_{digest}"


def function_id(server: str, tool: str) -> str:
    """The id of one tool when nothing else collides with it."""
    return _fit(f"{sanitise(server)}{SEPARATOR}{sanitise(tool)}", server, tool)


def assign_function_ids(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """Ids for `(server name, tool name)` pairs, in order, all distinct.

    When two pairs sanitise to the same id (`a.b` and `a_b`, or one tool listed twice), the later one gets
    `_2`, `_3`, … appended, shortened as needed to stay within 64 characters.
    """
    taken: set[str] = set()
    ids: list[str] = []
    for server, tool in pairs:
        candidate = function_id(server, tool)
        number = 1
        while candidate in taken:
            number += 1
            suffix = f"_{number}"
            candidate = function_id(server, tool)[: MAX_ID_LENGTH - len(suffix)] + suffix
        taken.add(candidate)
        ids.append(candidate)
    return ids
