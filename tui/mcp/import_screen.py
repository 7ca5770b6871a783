"""The import dialog of the MCP servers screen: which JSON file (Claude Desktop's `mcpServers` format) and
whether entries of the same name replace the configured ones."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, Input, Static

from visindigo.tui.common.modal import FORM_CSS, ModalFrame, close_on_escape, field_row


class ImportScreen(ModalFrame[tuple[Path, bool] | None]):
    """Asks which JSON file to import (Claude Desktop's by default) and whether same-name servers are replaced."""

    BINDINGS = [close_on_escape("cancel", "Cancel"), Binding("ctrl+s", "submit", "Import")]

    DEFAULT_CSS = (
        FORM_CSS
        + """
    ImportScreen > .frame {
        padding: 1 1 0 1;
    }
    """
    )

    def __init__(self, default_path: Path | None = None) -> None:
        super().__init__()
        self._default = default_path

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Import MCP servers"
            frame.border_subtitle = "enter import · esc cancel"
            yield Static(
                Content('A JSON file with "mcpServers" (Claude Desktop, Cursor, Claude Code) or "servers" (VS Code).'),
                classes="hint",
            )
            yield from field_row(
                "File",
                Input(
                    str(self._default) if self._default else "",
                    id="path",
                    compact=True,
                    placeholder="path/to/claude_desktop_config.json",
                ),
            )
            yield from field_row("", Checkbox("Replace servers of the same name", id="replace", compact=True))
            yield Static("", id="error", classes="error")
            with Horizontal(classes="buttons"):
                yield Button("Import", variant="primary", id="import")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#path", Input).focus()

    @on(Input.Submitted)
    def action_submit(self) -> None:
        text = self.query_one("#path", Input).value.strip()
        if not text:
            self.query_one("#error", Static).update(Content("Type the path of the file to import."))
            return
        self.dismiss((Path(text).expanduser(), self.query_one("#replace", Checkbox).value))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "import":
            self.action_submit()
        else:
            self.action_cancel()
