"""Choosing a file from a folder tree (alt+u on the main screen): for a file the `@` list does not reach, or
when browsing is easier than remembering a name.

The tree starts at the start folder and can go up from it (backspace shows the folder above); hidden files are
left out. Enter on a file chooses it; what is chosen is read and checked by whoever opened the picker, which
says in one line why a file cannot be attached.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rich.text import Text, TextType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DirectoryTree, Static

from visindigo.tui.common.modal import ModalFrame, close_on_escape, sanitize
from visindigo.tui.common.sanitize import clean_line


class VisibleTree(DirectoryTree):
    """A `DirectoryTree` without hidden files and folders, whose names are shown as plain, cleaned text (a file
    may be called `[b]x` or hold an escape sequence; `Tree` would read the first as markup)."""

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [path for path in paths if not path.name.startswith(".")]

    def process_label(self, label: TextType) -> Text:
        return Text(clean_line(label.plain if isinstance(label, Text) else str(label), 200) or "?")


class FilePickerScreen(ModalFrame[Path | None]):
    """A folder tree; dismisses with the chosen file's path, or None."""

    BINDINGS = [
        close_on_escape("dismiss_none", "Back"),
        Binding("backspace", "up", "The folder above", show=False),
    ]

    DEFAULT_CSS = """
    FilePickerScreen VisibleTree {
        height: 16;
        max-height: 60vh;
    }
    """

    def __init__(self, start_folder: str | Path) -> None:
        super().__init__()
        self.folder = Path(start_folder)

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Attach a file to the next message"
            frame.border_subtitle = "enter choose · backspace folder above · esc back"
            yield Static(Content(sanitize(str(self.folder))), id="folder", classes="hint")
            yield VisibleTree(self.folder, id="tree")

    def on_mount(self) -> None:
        self.query_one(VisibleTree).focus()

    @on(DirectoryTree.FileSelected)
    def _chosen(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(Path(event.path))

    def action_up(self) -> None:
        parent = self.folder.parent
        if parent != self.folder:
            self.folder = parent
            self.query_one(VisibleTree).path = parent
            self.query_one("#folder", Static).update(Content(sanitize(str(parent))))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
