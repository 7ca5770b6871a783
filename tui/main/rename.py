"""Asking for a dialog's new title."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from visindigo.tui.common.modal import ModalFrame, close_on_escape
from visindigo.tui.common.sanitize import clean_line

TITLE_LIMIT = 120


class RenameScreen(ModalFrame[str | None]):
    """Dismisses with the new title (trimmed; "" lets the first message name the dialog) or None on Esc."""

    BINDINGS: ClassVar[list[BindingType]] = [close_on_escape("cancel", "Cancel")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._current = clean_line(title, TITLE_LIMIT)

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Rename dialog"
            frame.border_subtitle = "enter saves · esc cancels"
            yield Input(
                self._current,
                placeholder="Title (empty: named after the first message)",
                max_length=TITLE_LIMIT,
                id="title",
            )
            yield Static(Content("Branches keep their own titles."), classes="hint")

    @on(Input.Submitted, "#title")
    def _save(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(" ".join(event.value.split()))

    def action_cancel(self) -> None:
        self.dismiss(None)
