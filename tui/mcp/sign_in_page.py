"""Signing in to an HTTP MCP server: the authorization page to open, shown until the browser comes back.

The page is copied with OSC 52 as the screen opens (over SSH the browser is on the user's own machine, where
the clipboard is), and shown in full so it can be copied by hand too. The screen closes itself when the
redirect arrives on the loopback port; Esc gives the sign-in up.
"""

from __future__ import annotations

import asyncio

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe, sanitize


class SignInScreen(ModalFrame[None]):
    BINDINGS = [close_on_escape("cancel", "Cancel sign-in")]

    DEFAULT_CSS = """
    SignInScreen #url {
        color: $text-accent;
        margin: 1 0;
    }
    """

    def __init__(self, server: str, url: str, finished: asyncio.Event) -> None:
        super().__init__()
        self.server = server
        self.url = url
        self.finished = finished

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = f"Sign in to {sanitize(self.server)}"
            frame.border_subtitle = "esc cancels"
            yield Static(Content("Open this page in a browser (it is on your clipboard) and allow access:"))
            yield Static(safe(self.url), id="url")
            yield Static(Content("This closes by itself when the browser comes back to this machine."), classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.app.copy_to_clipboard(self.url)
        self.run_worker(self._close_when_finished(), exit_on_error=False)

    async def _close_when_finished(self) -> None:
        await self.finished.wait()
        if self.app.screen is self:
            self.dismiss(None)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(None)
