"""A yes/no question before something that cannot be undone (deleting, opening a link, overwriting)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from visindigo.tui.common.modal import ModalFrame, safe


class ConfirmScreen(ModalFrame[bool]):
    """Dismisses with True only when the user confirms; Esc, "n" and the cancel button give False.

    The cancel button has the focus unless `default_confirm` is set, so a stray Enter never deletes anything.
    Title and body are shown as plain text: they often quote a dialog title or a URL the model wrote.
    """

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel"),
        Binding("y", "answer(True)", "Confirm"),
        Binding("left", "app.focus_previous", "Previous button", show=False),
        Binding("right", "app.focus_next", "Next button", show=False),
    ]

    DEFAULT_CSS = """
    ConfirmScreen > .frame {
        width: 64;
    }
    ConfirmScreen #body {
        margin: 1 0 0 0;
    }
    """

    def __init__(
        self,
        title: str,
        body: str,
        confirm_label: str = "OK",
        *,
        cancel_label: str = "Cancel",
        danger: bool = False,
        default_confirm: bool = False,
    ) -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._confirm_label = confirm_label
        self._cancel_label = cancel_label
        self._danger = danger
        self._default_confirm = default_confirm

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = safe(self._title)
            yield Static(safe(self._body), id="body")
            with Horizontal(classes="buttons"):
                yield Button(f"{self._confirm_label} (y)", variant="error" if self._danger else "primary", id="confirm")
                yield Button(f"{self._cancel_label} (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm" if self._default_confirm else "#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_answer(self, confirmed: bool) -> None:
        self.dismiss(confirmed)
