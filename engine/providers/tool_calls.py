"""One tool call from the pieces a server sent for it, in either wire format.

Servers and proxies split a call in ways the APIs do not describe: litellm turned one Anthropic `tool_use` into
several blocks with the same id, and an OpenAI-compatible server repeated a call's id under a new index. Pieces
that share a call id are one call; its argument text is their concatenation — unless each piece is already a
whole JSON value (the call repeated rather than split), in which case running it once is what the model meant.

Going back, a call's arguments must be an object on both wires: a call cut short by the output limit (`{"tz": "U`)
is sent as `{}` (its tool result already told the model why it did not run); llama-server answers the cut text
with HTTP 500 "Failed to parse tool call arguments as JSON", and the Messages API has no place for text there.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["arguments_object", "merged_arguments"]


def merged_arguments(pieces: list[str]) -> str:
    """One call's argument text from its pieces: their concatenation, unless that is not JSON while the pieces
    are each a whole object (a call repeated in full rather than split) — then the last whole one."""
    joined = "".join(pieces).strip()
    if not joined:
        return "{}"
    if len(pieces) < 2 or _is_json(joined):
        return joined
    whole = [piece.strip() for piece in pieces if piece.strip() and _is_json(piece.strip())]
    return whole[-1] if whole else joined


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def arguments_object(raw: Any) -> dict[str, Any] | None:
    """A call's arguments as the object the wire needs ("" and null are no arguments), or None when the text is not
    a JSON object (cut short, or not an object at all)."""
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if not isinstance(raw, str):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
