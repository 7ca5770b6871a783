"""The vim keys' state machine: one key in (with the text and cursor), an `Outcome` out; no Textual."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from visindigo.tui.chat.vim.motions import MOTION_KEYS, Buffer, motion

Mode = Literal["normal", "insert", "visual"]
MODE_TITLES: dict[str, str] = {"normal": "NORMAL", "insert": "INSERT", "visual": "VISUAL"}

HELP: list[tuple[str, str]] = [
    ("esc", "vim keys: insert or visual mode → normal mode; in normal mode esc cancels or closes as it always does"),
    ("enter", "send (in every mode); ctrl+j starts a new line in insert mode"),
    ("h j k l", "left, down, up, right (a count before: 3j)"),
    ("w b e", "next word, back a word, end of the word"),
    ("0 ^ $", "start of the line, first character, end of the line"),
    ("gg G", "first line, last line (3G: line 3)"),
    ("i I a A o O", "insert: here, at the line's start, after, at its end, on a new line below, above"),
    ("x dd dw D", "delete a character, the line, to the next word, to the end of the line"),
    ("cw cc C", "change the word, the line, to the end of the line"),
    ("yy p P", "copy the line, paste after, before"),
    ("u ctrl+r", "undo, redo"),
    ("v", "select (move to extend it), then d x c y"),
]
"""The vim keys as the key help (f1) lists them."""


def on_character(buffer: Buffer, offset: int) -> int:
    """`offset` moved back onto its line's last character: in normal mode the cursor is always on one."""
    row, _ = buffer.location(offset)
    start, end = buffer.line_span(row)
    return max(start, min(offset, end - 1))


@dataclass
class Outcome:
    """What one key did. `taken` False: the key goes on to the composer's own handling."""

    taken: bool = True
    replace: tuple[int, int, str] | None = None
    cursor: int | None = None
    selection: tuple[int, int] | None = None
    command: Literal["undo", "redo", None] = None


@dataclass
class VimState:
    """The mode, a count being typed, a pending operator (d c y) or prefix (g), and the register."""

    mode: Mode = "insert"
    count: str = ""
    operator: str = ""
    operator_count: int | None = None
    prefix: str = ""
    register: str = ""
    register_linewise: bool = False
    anchor: int = 0
    #: Visual mode: where the cursor is (the TextArea's own cursor is the selection's far end, one past it).
    visual_cursor: int = 0

    def _reset(self) -> None:
        self.count = self.operator = self.prefix = ""
        self.operator_count = None

    def _take_count(self) -> int | None:
        counts = [c for c in (self.operator_count, int(self.count) if self.count else None) if c is not None]
        self.count = ""
        if not counts:
            return None
        total = 1
        for c in counts:
            total *= c
        return total

    def feed(self, key: str, character: str | None, buffer: Buffer) -> Outcome:
        """One key, in the current mode."""
        if self.mode == "insert":
            if key == "escape":
                self.mode = "normal"
                _row, column = buffer.location()
                return Outcome(cursor=buffer.cursor - 1 if column > 0 else buffer.cursor)
            return Outcome(taken=False)
        if key == "enter":
            self._reset()
            return Outcome(taken=False)
        if key == "escape":
            pending = bool(self.count or self.operator or self.prefix)
            self._reset()
            if self.mode == "visual":
                self.mode = "normal"
                return Outcome(cursor=min(self.visual_cursor, len(buffer.text)))
            return Outcome() if pending else Outcome(taken=False)  # normal mode: esc keeps its meaning
        name = character if character and len(character) == 1 and character.isprintable() else key
        if name.isdigit() and (name != "0" or self.count):
            self.count += name
            return Outcome()
        if self.prefix == "g":
            self.prefix = ""
            name = "gg" if name == "g" else ""
        elif name == "g":
            self.prefix = "g"
            return Outcome()
        if self.mode == "visual":
            return self._visual(name, buffer)
        if self.operator:
            return self._operate(name, buffer)
        return self._normal(name, key, buffer)

    # --- normal mode ---------------------------------------------------------------------------------------------

    def _normal(self, name: str, key: str, buffer: Buffer) -> Outcome:
        text, cursor = buffer.text, buffer.cursor
        row, _ = buffer.location()
        start, end = buffer.line_span(row)
        if name in MOTION_KEYS:
            return Outcome(cursor=on_character(buffer, motion(name, self._take_count(), buffer).target))
        count = self._take_count()
        n = count or 1
        if name in ("d", "c", "y"):
            self.operator, self.operator_count = name, count
            return Outcome()
        if name in ("i", "a", "A", "I", "o", "O"):
            self.mode = "insert"
            if name == "i":
                return Outcome(cursor=cursor)
            if name == "a":
                return Outcome(cursor=min(end, cursor + 1))
            if name == "A":
                return Outcome(cursor=end)
            if name == "I":
                return Outcome(cursor=motion("^", None, buffer).target)
            if name == "o":
                return Outcome(replace=(end, end, "\n"), cursor=end + 1)
            return Outcome(replace=(start, start, "\n"), cursor=start)
        if name == "x":
            stop = min(end, cursor + n)
            self.register, self.register_linewise = text[cursor:stop], False
            return Outcome(replace=(cursor, stop, ""), cursor=cursor)
        if name == "X":
            begin = max(start, cursor - n)
            self.register, self.register_linewise = text[begin:cursor], False
            return Outcome(replace=(begin, cursor, ""), cursor=begin)
        if name in ("D", "C"):
            self.register, self.register_linewise = text[cursor:end], False
            if name == "C":
                self.mode = "insert"
                return Outcome(replace=(cursor, end, ""), cursor=cursor)
            return Outcome(replace=(cursor, end, ""), cursor=max(start, cursor - 1))
        if name == "Y":
            return self._lines("y", row, row + n - 1, buffer)
        if name in ("p", "P"):
            return self._paste(name == "p", n, buffer)
        if name == "u":
            return Outcome(command="undo")
        if key == "ctrl+r":
            return Outcome(command="redo")
        if name == "v":
            self.mode, self.anchor, self.visual_cursor = "visual", cursor, cursor
            return Outcome(selection=(cursor, min(len(text), cursor + 1)))
        # a character does nothing in normal mode (it never types); other keys (tab, ctrl+…) go on
        return Outcome() if len(name) == 1 else Outcome(taken=False)

    def _operate(self, name: str, buffer: Buffer) -> Outcome:
        operator = self.operator
        row, _ = buffer.location()
        if name == operator:  # dd, cc, yy
            count = self._take_count() or 1
            self._reset()
            return self._lines(operator, row, row + count - 1, buffer)
        if name not in MOTION_KEYS:
            self._reset()
            return Outcome()
        count = self._take_count()
        self._reset()
        if operator == "c" and name == "w" and buffer.text[buffer.cursor : buffer.cursor + 1].strip():
            name = "e"  # cw changes to the end of the word, as in vim
        moved = motion(name, count, buffer, for_operator=True)
        if moved.linewise:
            other, _ = buffer.location(moved.target)
            return self._lines(operator, min(row, other), max(row, other), buffer)
        begin, finish = sorted((buffer.cursor, moved.target))
        if moved.inclusive:
            finish = min(len(buffer.text), finish + 1)
        return self._span(operator, begin, finish, buffer)

    def _span(self, operator: str, begin: int, finish: int, buffer: Buffer) -> Outcome:
        self.register, self.register_linewise = buffer.text[begin:finish], False
        if operator == "y":
            return Outcome(cursor=begin)
        if operator == "c":
            self.mode = "insert"
        return Outcome(replace=(begin, finish, ""), cursor=begin)

    def _lines(self, operator: str, first: int, last: int, buffer: Buffer) -> Outcome:
        lines = buffer.lines
        last = min(last, len(lines) - 1)
        begin, _ = buffer.line_span(first)
        _, finish = buffer.line_span(last)
        self.register, self.register_linewise = "\n".join(lines[first : last + 1]), True
        if operator == "y":
            return Outcome(cursor=buffer.cursor)
        if operator == "c":
            self.mode = "insert"
            return Outcome(replace=(begin, finish, ""), cursor=begin)
        # the lines and one newline go: the one after them, or (the last lines) the one before
        if finish < len(buffer.text):
            finish += 1
        elif begin > 0:
            begin -= 1
        after = Buffer(buffer.text[:begin] + buffer.text[finish:], 0)
        after.cursor = after.offset(min(first, len(after.lines) - 1), 0)
        return Outcome(replace=(begin, finish, ""), cursor=motion("^", None, after).target)

    def _paste(self, after: bool, count: int, buffer: Buffer) -> Outcome:
        if not self.register:
            return Outcome()
        row, _ = buffer.location()
        if self.register_linewise:
            block = "\n".join([self.register] * count)
            start, end = buffer.line_span(row)
            if after:
                return Outcome(replace=(end, end, "\n" + block), cursor=end + 1)
            return Outcome(replace=(start, start, block + "\n"), cursor=start)
        block = self.register * count
        _, end = buffer.line_span(row)
        at = min(end, buffer.cursor + 1) if after else buffer.cursor
        return Outcome(replace=(at, at, block), cursor=at + len(block) - 1)

    # --- visual mode ---------------------------------------------------------------------------------------------

    def _visual(self, name: str, buffer: Buffer) -> Outcome:
        here = Buffer(buffer.text, min(self.visual_cursor, len(buffer.text)))
        if name in MOTION_KEYS:
            self.visual_cursor = on_character(here, motion(name, self._take_count(), here).target)
            return Outcome(selection=self._selection(self.visual_cursor, len(buffer.text)))
        self._reset()
        begin, finish = self._selection(here.cursor, len(buffer.text))
        if name in ("d", "x", "c", "y"):
            self.mode = "normal"
            return self._span("d" if name == "x" else name, begin, finish, buffer)
        if name == "v":
            self.mode = "normal"
            return Outcome(cursor=here.cursor)
        return Outcome(selection=(begin, finish)) if len(name) == 1 else Outcome(taken=False)

    def _selection(self, cursor: int, length: int) -> tuple[int, int]:
        begin, finish = sorted((self.anchor, cursor))
        return begin, min(length, finish + 1)
