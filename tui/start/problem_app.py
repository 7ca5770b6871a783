"""What a browser tab of `visindigo serve` shows when the app cannot start there.

The command line prints such problems on stderr, but a served app's stderr is the server's console: the tab
would wait on its splash screen for ever. This app shows the same sentence in the page instead.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static


class ProblemApp(App[None]):
    """One sentence and how to leave."""

    CSS = """
    Screen { align: center middle; }
    #problem { width: 80%; max-width: 100; height: auto; border: round $error; padding: 1 2; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q,escape,q", "quit", "Close")]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        from visindigo.tui.common.sanitize import clean

        text = f"Visindigo cannot start here:\n\n{clean(self.message)}\n\nctrl+q closes this page's app."
        yield Static(Content(text), id="problem")
