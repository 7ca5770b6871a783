"""A multi-line editor where Ctrl+J makes a new line, as it does in the composer.

Enter already does in a plain `TextArea`, but users learn Ctrl+J in the composer (where Enter sends) and press
it everywhere; in a bare TextArea it did nothing. Ctrl+J is a distinct byte (LF) on every terminal, SSH too.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import TextArea


class EditingArea(TextArea):
    """`TextArea` plus Ctrl+J for a new line."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+j", "newline", "New line", show=False)]

    def action_newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)
