"""Whether a Textual class inherits its bases' key bindings (`inherit_bindings=False` in its class statement).

Textual merges `BINDINGS` along the MRO and starts afresh at a class that does not inherit them (`Static`
does not); the help screen lists the keys the same way, and needs that flag, which Textual keeps private.
Off (every class inherits, Textual's default) on a Textual this was not checked on.

Upstream report: docs/upstream/inherit-bindings.md
"""

from __future__ import annotations

from textual.dom import DOMNode

from visindigo.tui.platform import compat

UPSTREAM = "docs/upstream/inherit-bindings.md"


def inherits_bindings(cls: type[DOMNode]) -> bool:
    """False for a class declared with `inherit_bindings=False`."""
    if not compat.enabled("inherit_bindings"):
        return True
    return bool(cls.__dict__.get("_inherit_bindings", True))
