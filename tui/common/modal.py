"""Small pieces the management screens share: safe text, the modal frame's CSS and the forms' rows and buttons.

Anything a model, a tool, an MCP server or a config file wrote is untrusted: it may carry terminal escape
sequences (Textual passes ESC through to the terminal) or Textual markup (which would style text or create
action links). `safe` strips the first and returns `Content`, which never parses the second.
"""

from __future__ import annotations

from typing import TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Label

from visindigo.tui.common.sanitize import clean

ResultT = TypeVar("ResultT")


def sanitize(text: str) -> str:
    """`text` without terminal control sequences or bidi overrides; tabs and newlines are kept."""
    return clean(text)


def safe(text: str) -> Content:
    """Untrusted text as plain `Content`: sanitized, and markup is never interpreted."""
    return Content(sanitize(text))


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, saying how much was left out, so a huge value cannot stall a screen."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit:,} more characters not shown)"


def close_on_escape(action: str, description: str = "Close") -> Binding:
    """esc bound to close a screen that has no widget of its own for esc (no Select, no TextArea).

    With priority the app runs the action, and so takes the screen off the stack, while it handles esc — before
    it reads the next key. Without it esc is passed on to the focused widget's queue first, and a key typed
    right after esc (alt+t, say, in the same read from a slow SSH link or a busy machine) reached the closing
    screen and was lost: the hostile-terminal test's intermittent failure under load.
    """
    return Binding("escape", action, description, priority=True)


class ModalFrame(ModalScreen[ResultT]):
    """A centred, bordered box over the dimmed screen; every management screen is one.

    The look lives here once so that all of them agree, and uses theme variables only.
    """

    DEFAULT_CSS = """
    ModalFrame {
        align: center middle;
    }
    ModalFrame > .frame {
        width: 76;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round $primary;
        border-title-color: $text-primary;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    ModalFrame .hint {
        color: $text-muted;
    }
    ModalFrame .error {
        color: $text-error;
    }
    ModalFrame .buttons {
        height: auto;
        align-horizontal: right;
        margin-top: 1;
    }
    ModalFrame .buttons Button {
        margin-left: 1;
    }
    """


FORM_CSS = """
.field-row {
    height: auto;
}
.field-row > .field-label {
    width: 18;
    color: $text-muted;
}
.field-row > Input, .field-row > Select, .field-row > Checkbox {
    width: 1fr;
}
"""
"""Rows of "label  field" with compact widgets, so a whole form fits in 80×24 without scrolling."""


def field_row(label: str, widget: Widget) -> ComposeResult:
    """One `FORM_CSS` row: the label, then the field ("" for a checkbox that names itself)."""
    with Horizontal(classes="field-row"):
        yield Label(label, classes="field-label")
        yield widget


class FormFrame(ModalFrame[ResultT]):
    """A form: ctrl+s or its Save button calls `action_save`; Esc or Cancel dismisses with None.

    The keys and buttons behave the same in every form, so they are written here once.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    @staticmethod
    def save_and_cancel() -> ComposeResult:
        """The row of buttons at the foot of the form."""
        with Horizontal(classes="buttons"):
            yield Button("Save", variant="primary", id="save")
            yield Button("Cancel", id="cancel")

    def action_save(self) -> None:
        """Dismiss with what the form describes, or show why it cannot be saved yet."""
        raise NotImplementedError

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#save")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save()

    @on(Button.Pressed, "#cancel")
    def _cancel_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_cancel()
