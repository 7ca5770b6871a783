"""One tool call from the pieces a server sent for it, in either wire format.

Servers and proxies split a call in ways the APIs do not describe: litellm turned one Anthropic `tool_use` into
several blocks with the same id, and an OpenAI-compatible server repeated a call's id under a new index. Pieces
that share a call id are one call; its argument text is their concatenation — unless each piece is already a
whole JSON value (the call repeated rather than split), in which case running it once is what the model meant.
"""

from __future__ import annotations

import json

__all__ = ["merged_arguments"]


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
