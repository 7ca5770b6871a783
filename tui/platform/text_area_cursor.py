"""What a `TextArea` draws its cursor with, for a widget that draws its own placeholder line.

Textual's `TextArea` knows whether its cursor is shown this instant (focus and blink) and in which style (its
theme's), but keeps both private; the composer draws a placeholder cut to one line and needs the cursor on it
as `TextArea` itself would draw it. Off (no cursor on the placeholder) on a Textual this was not checked on.

Upstream report: docs/upstream/text-area-cursor.md
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.widgets import TextArea

from visindigo.tui.platform import compat

UPSTREAM = "docs/upstream/text-area-cursor.md"


def drawn_cursor_style(area: TextArea) -> Style | None:
    """The style `area` draws its cursor in right now, or None while the cursor is not drawn (blink, no focus)."""
    if not compat.enabled("text_area_cursor", area):
        return None
    private: Any = area
    if not private._draw_cursor:
        return None
    theme = private._theme
    style = theme.cursor_style if theme else None
    return style if isinstance(style, Style) else None
