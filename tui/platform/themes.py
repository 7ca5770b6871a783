"""Starting the app in a theme chosen before it runs, without Textual re-parsing every stylesheet for it.

Assigning `App.theme` runs Textual's theme watcher, which asks for the CSS to be refreshed: before the first
frame that is a second parse of every stylesheet, for CSS that never showed the old theme, a share of the
time to the first frame worth keeping. `start_in_theme` does what the watcher does besides — the theme's CSS
variables, its classes and the ANSI colour mapping — and only the last has no public way (Textual's private
`App._refresh_truecolor_filter`). On a Textual this was not checked on (`compat`) the theme is assigned as
usual, which costs that parse and nothing else.

Upstream report: docs/upstream/theme-before-start.md

`ReadableDim`: Textual draws the dim style of an RGB colour as a colour 66% of the way from the background, which
the contrast test measures (`themes.contrast.DIM`); a colour of the terminal's palette (an ANSI theme) it leaves
to the terminal's faint, which most terminals draw at half strength or less (about 3:1 for xterm's white on
black, under the 4.5:1 text needs). There the dim is dropped. It is a Textual line filter (the public
`App.get_line_filters` adds it), and only while Textual draws in the terminal's palette: otherwise Textual's
own `ANSIToTruecolor` filter has already turned every palette colour into RGB (and its dim into a measured
colour), which leaves this one nothing to do on any line — it would only cost a pass over every line of every
frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.filter import ANSIToTruecolor, LineFilter

from visindigo.tui.platform import compat

_NOT_DIM = Style(dim=False)

UPSTREAM = "docs/upstream/theme-before-start.md"


def start_in_theme(app: App[Any], name: str) -> None:
    """Start `app` in the theme `name` (installed already), before the app runs (nothing is parsed or drawn)."""
    if not compat.enabled("start_theme", app):
        app.theme = name
        return
    app.set_reactive(App.theme, name)
    theme = app.current_theme
    app.stylesheet.set_variables(app.get_css_variables())
    app.set_class(True, f"-theme-{theme.name}", update=False)
    app.set_class(theme.dark, "-dark-mode", update=False)
    app.set_class(not theme.dark, "-light-mode", update=False)
    private: Any = app
    private._refresh_truecolor_filter(app.ansi_theme)


def with_readable_dim(filters: Sequence[LineFilter], readable_dim: ReadableDim) -> list[LineFilter]:
    """`filters` (Textual's), then `readable_dim` unless Textual converts the palette's colours to RGB."""
    if any(isinstance(f, ANSIToTruecolor) for f in filters):
        return list(filters)
    return [*filters, readable_dim]


class ReadableDim(LineFilter):
    """Dim dropped from text in a colour of the terminal's palette (Textual already turned dim RGB colours into
    measured ones); with no colour at all (NO_COLOR) the terminal's faint stays, the only way left to tell a hint."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(style is not None and style.dim for _text, style, _control in segments):
            return segments
        return [
            Segment(text, style + _NOT_DIM, control)
            if style is not None and style.dim and style.color is not None and style.color.triplet is None
            else Segment(text, style, control)
            for text, style, control in segments
        ]
