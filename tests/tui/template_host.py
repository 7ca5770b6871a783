"""A tiny app that opens one template screen over a fixed background and records what it dismisses with."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from textual import events
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from visindigo.engine import Prompt
from visindigo.tui import platform

BACKGROUND = "Visindigo — the main screen would be here.\n" * 3


def fixed_clock() -> datetime:
    """Saturday 14 March 2026, 09:30 UTC: every preview shows the same date on every day the tests run."""
    return datetime(2026, 3, 14, 9, 30, tzinfo=UTC)


#: A template with one field of every type the form knows, plus a system variable and a plain placeholder.
EVERY_TYPE = Prompt(
    "Release notes",
    'Write release notes for {{product | text:placeholder="Product name":required}} '
    'version {{version | text:default="1.0"}}, released {{date | date:required}} ({{CURRENT_WEEKDAY}} build).\n'
    "Audience: {{audience}}.\n"
    'Tone: {{tone | select:options=["Formal","Friendly","Terse"]:default="Friendly"}}.\n'
    'At most {{items | number:min=1:max=20:step=1:default=5:description="How many bullet points"}} items.\n'
    'Include breaking changes: {{breaking | checkbox:label="Mention breaking changes"}}.\n'
    'Changes:\n{{changes | textarea:description="One change per line":required}}',
    description="Turn a list of changes into release notes for users.",
    tags=("writing",),
)


class TemplateHost(App[None]):
    """Pushes the screen `make_screen` builds once mounted and records every result it dismisses with."""

    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them
        self._make_screen = make_screen
        self.results: list[Any] = []

    def compose(self) -> ComposeResult:
        yield Static(BACKGROUND)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Text fields do not blink, as in the app (`[ui] cursor_blink` is off unless chosen): on a busy machine a
        snapshot taken after the first half second would catch the cursor in its off phase."""
        if hasattr(type(event.widget), "cursor_blink"):
            event.widget.cursor_blink = False  # type: ignore[attr-defined]

    def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.push_screen(self._make_screen(), self.results.append)
