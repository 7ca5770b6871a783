"""Vim keys for the composer (`[ui] composer_keys = "vim"`): normal, insert and visual modes.

`VimState.feed(key, character, buffer)` is pure — text and cursor in, an `Outcome` out (one replacement, where
the cursor goes, a selection, or a command the composer carries out: send, undo, redo) — so every motion and
edit is tested without Textual. `VimKeys` is the small adapter the composer's key handler asks first.

What is there: h j k l w b e 0 ^ $ gg G; x X dd D dw cw cc C yy Y p P u ctrl+r; i I a A o O; v with d x c y;
counts before a command or a motion ("3w", "2dd", "d2w"). Enter sends in every mode (as the standard keys do);
ctrl+j starts a new line in insert mode. Esc in insert or visual mode goes to normal mode; in normal mode it is
not taken, so it keeps its meaning there (cancel a run, close a panel, leave an edit).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visindigo.engine import Center
    from visindigo.tui.chat.vim.keys import VimKeys
    from visindigo.tui.chat.vim.motions import Buffer, motion
    from visindigo.tui.chat.vim.state import HELP, MODE_TITLES, Outcome, VimState

__all__ = ["HELP", "MODE_TITLES", "Buffer", "Outcome", "VimKeys", "VimState", "configured_keys", "motion"]

#: Where each name lives. They are imported when first asked for: the standard keys (the default) never load the
#: vim machinery, and the composer is on the way to the first frame.
_HOMES = {
    "VimKeys": "keys",
    "Buffer": "motions",
    "motion": "motions",
    "HELP": "state",
    "MODE_TITLES": "state",
    "Outcome": "state",
    "VimState": "state",
}


def configured_keys(center: Center) -> str:
    """`[ui] composer_keys`: "vim" or "standard" (the default, and what any other value means)."""
    config = center.config
    ui = config.data.get("ui") if config is not None else None
    return "vim" if isinstance(ui, dict) and ui.get("composer_keys") == "vim" else "standard"


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
