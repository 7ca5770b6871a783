"""Where the vim motions go (h j k l w b e 0 ^ $ gg G) in a `Buffer`: text and a cursor offset, nothing else."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Buffer:
    """The composer's text and cursor, as an offset into the text."""

    text: str
    cursor: int

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def location(self, offset: int | None = None) -> tuple[int, int]:
        """(row, column) of `offset` (the cursor by default)."""
        offset = self.cursor if offset is None else offset
        before = self.text[:offset]
        row = before.count("\n")
        return row, offset - (before.rfind("\n") + 1)

    def offset(self, row: int, column: int) -> int:
        lines = self.lines
        row = max(0, min(row, len(lines) - 1))
        return sum(len(line) + 1 for line in lines[:row]) + max(0, min(column, len(lines[row])))

    def line_span(self, row: int) -> tuple[int, int]:
        """Offsets of the start and the end (before its newline) of line `row`."""
        start = self.offset(row, 0)
        return start, start + len(self.lines[row])


def _kind(char: str) -> int:
    """0 blank, 1 word character, 2 punctuation: what w, b and e step between."""
    if char.isspace():
        return 0
    return 1 if char.isalnum() or char == "_" else 2


def next_word(text: str, offset: int) -> int:
    """The start of the next word after `offset` (vim's w)."""
    end = len(text)
    if offset >= end:
        return end
    kind = _kind(text[offset])
    while offset < end and kind and _kind(text[offset]) == kind:
        offset += 1
    while offset < end and _kind(text[offset]) == 0:
        offset += 1
    return offset


def previous_word(text: str, offset: int) -> int:
    """The start of the word before `offset` (vim's b)."""
    offset -= 1
    while offset > 0 and _kind(text[offset]) == 0:
        offset -= 1
    if offset <= 0:
        return 0
    kind = _kind(text[offset])
    while offset > 0 and _kind(text[offset - 1]) == kind:
        offset -= 1
    return offset


def word_end(text: str, offset: int) -> int:
    """The last character of this word or the next (vim's e)."""
    end = len(text)
    offset += 1
    while offset < end and _kind(text[offset]) == 0:
        offset += 1
    if offset >= end:
        return max(0, end - 1)
    kind = _kind(text[offset])
    while offset + 1 < end and _kind(text[offset + 1]) == kind:
        offset += 1
    return offset


@dataclass
class Motion:
    """Where a motion goes, and how an operator takes the text up to there."""

    target: int
    linewise: bool = False
    inclusive: bool = False


MOTION_KEYS = frozenset("hjklwbe0^$G") | {"gg", "left", "right", "up", "down", "home", "end"}


def motion(key: str, count: int | None, buffer: Buffer, *, for_operator: bool = False) -> Motion:
    """Where `key` (repeated `count` times) takes the cursor."""
    n = count or 1
    text, cursor = buffer.text, buffer.cursor
    row, column = buffer.location()
    lines = buffer.lines
    if key in ("h", "left"):
        start, _ = buffer.line_span(row)
        return Motion(max(start, cursor - n))
    if key in ("l", "right"):
        _, end = buffer.line_span(row)
        last = end if for_operator else max(buffer.line_span(row)[0], end - 1)
        return Motion(min(last, cursor + n))
    if key in ("j", "down", "k", "up"):
        target = row + n if key in ("j", "down") else row - n
        return Motion(buffer.offset(max(0, min(target, len(lines) - 1)), column), linewise=True)
    if key in ("0", "home"):
        return Motion(buffer.line_span(row)[0])
    if key == "^":
        start, _ = buffer.line_span(row)
        line = lines[row]
        return Motion(start + len(line) - len(line.lstrip()))
    if key in ("$", "end"):
        target_row = min(row + n - 1, len(lines) - 1)
        start, end = buffer.line_span(target_row)
        return Motion(end if for_operator else max(start, end - 1), inclusive=False)
    if key == "w":
        target = cursor
        for _ in range(n):
            target = next_word(text, target)
        if for_operator:  # dw on a line's last word stops at the line's end, as in vim
            _, end = buffer.line_span(row)
            target = min(target, end) if cursor < end else target
        return Motion(target)
    if key == "b":
        target = cursor
        for _ in range(n):
            target = previous_word(text, target)
        return Motion(target)
    if key == "e":
        target = cursor
        for _ in range(n):
            target = word_end(text, target)
        return Motion(target, inclusive=True)
    if key in ("gg", "G"):
        target_row = count - 1 if count is not None else (0 if key == "gg" else len(lines) - 1)
        target_row = max(0, min(target_row, len(lines) - 1))
        line = lines[target_row]
        return Motion(buffer.offset(target_row, len(line) - len(line.lstrip())), linewise=True)
    return Motion(cursor)
