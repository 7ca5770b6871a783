"""A tiny app that shows one management screen over a fixed background, for Pilot and snapshot tests."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from visindigo.themes import register_themes
from visindigo.tui import platform

BACKGROUND = "Visindigo — the main screen would be here.\n" * 3


class ScreenHost(App[None]):
    """Pushes the screen `make_screen` builds once mounted and records every result it dismisses with."""

    def __init__(self, make_screen: Callable[[], Screen[Any]], *, theme: str = "visindigo-dark") -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them
        self._make_screen = make_screen
        self._theme_name = theme
        self.results: list[Any] = []
        self.theme_problems = register_themes(self)

    def compose(self) -> ComposeResult:
        yield Static(BACKGROUND)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Text fields do not blink, as in the app (`[ui] cursor_blink` is off unless chosen): on a busy machine a
        snapshot taken after the first half second would catch the cursor in its off phase."""
        if hasattr(type(event.widget), "cursor_blink"):
            event.widget.cursor_blink = False  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        self.theme = self._theme_name
        self.push_screen(self._make_screen(), self.results.append)


def screen_text(app: App[object]) -> str:
    """Everything on the terminal as plain text (from the screenshot SVG), to assert what the user sees."""
    svg = app.export_screenshot()
    body = svg[svg.index('<g class="terminal') :] if '<g class="terminal' in svg else svg
    return html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\xa0", " ")
