"""The adapter between the composer's TextArea and `VimState`: asked first for every key, shows the mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from visindigo.tui.chat.vim.motions import Buffer
from visindigo.tui.chat.vim.state import MODE_TITLES, Mode, Outcome, VimState

if TYPE_CHECKING:
    from textual import events
    from textual.widgets import TextArea


#: How many changes u can take back (each keeps the composer's text as it was).
UNDO_LEVELS = 200


class VimKeys:
    """The composer's TextArea driven by a `VimState`: asked first for every key, shows the mode in the border."""

    def __init__(self, area: TextArea) -> None:
        self.area = area
        self.state = VimState()
        #: vim's undo: the text and cursor before each change (a normal-mode edit, or an insert with what was typed
        #: in it, up to its Esc), so one u takes back a whole change; the text area's own undo groups by time.
        self.undos: list[tuple[str, int]] = []
        self.redos: list[tuple[str, int]] = []
        self.show_mode()
        self.remember(area.text, 0)  # it starts in insert mode: what is typed first is a change too

    @property
    def mode(self) -> Mode:
        return self.state.mode

    def reset(self) -> None:
        """Back to insert mode with nothing pending: the box was emptied (a message sent), typing starts anew."""
        register, linewise = self.state.register, self.state.register_linewise
        self.state = VimState(register=register, register_linewise=linewise)
        self.undos.clear()
        self.redos.clear()
        self.show_mode()
        self.remember(self.area.text, 0)

    def show_mode(self) -> None:
        self.area.border_title = f"vim · {MODE_TITLES[self.state.mode]}"

    def remember(self, text: str, cursor: int) -> None:
        """A change begins: `text` and `cursor` are what u comes back to; what could be redone is gone."""
        self.undos.append((text, cursor))
        del self.undos[:-UNDO_LEVELS]
        self.redos.clear()

    def step(self, source: list[tuple[str, int]]) -> None:
        """u (`source` the undos) or ctrl+r (the redos): the text as it was, the present kept for the way back."""
        if not source:
            return
        text, cursor = source.pop()
        area = self.area
        (self.redos if source is self.undos else self.undos).append(
            (area.text, Buffer(area.text, 0).offset(*area.cursor_location))
        )
        area.replace(text, (0, 0), area.document.end, maintain_selection_offset=False)
        shown = Buffer(text, min(cursor, max(0, len(text) - 1)))
        area.move_cursor(shown.location())

    def key(self, event: events.Key) -> bool:
        """Whether the key was taken (then it is stopped here); False: the composer handles it as usual."""
        state, area = self.state, self.area
        if state.mode == "insert" and event.key != "escape":
            return False
        text = area.text
        before = Buffer(text, Buffer(text, 0).offset(*area.cursor_location))
        was = state.mode
        outcome = state.feed(event.key, event.character, before)
        if not outcome.taken:
            return False
        if outcome.command is None and (outcome.replace is not None or (was != "insert" and state.mode == "insert")):
            self.remember(text, before.cursor)
        event.stop()
        event.prevent_default()
        self.apply(outcome, before)
        self.show_mode()
        return True

    def apply(self, outcome: Outcome, before: Buffer) -> None:
        from textual.widgets.text_area import Selection

        area = self.area
        if outcome.command is not None:
            self.step(self.undos if outcome.command == "undo" else self.redos)
            return
        if outcome.replace is not None:
            begin, finish, new = outcome.replace
            area.replace(new, before.location(begin), before.location(finish), maintain_selection_offset=False)
        after = Buffer(area.text, 0)
        if outcome.selection is not None:
            begin, finish = outcome.selection
            area.selection = Selection(after.location(begin), after.location(finish))
        elif outcome.cursor is not None:
            area.move_cursor(after.location(min(outcome.cursor, len(after.text))))
        elif outcome.command is not None and self.state.mode == "normal":
            cursor = Buffer(area.text, after.offset(*area.cursor_location))
            row, column = cursor.location()
            start, end = cursor.line_span(row)
            if column and cursor.cursor >= end:  # normal mode sits on a character, not after the last one
                area.move_cursor(cursor.location(max(start, end - 1)))
