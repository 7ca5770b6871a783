"""Very long messages: shown folded, and all of it when the user asks.

A 5 MB reply rendered as one Markdown widget took seconds of the event loop (keys echoed 5–8 s late) and hundreds of
MB (a widget per paragraph). So a message longer than `FOLD_LIMIT` shows its beginning, a note saying how much is
folded and its last `END_LIMIT` characters (`fold_middle`: the end of a long reply is usually its conclusion, or the
last lines of a log); enter on it shows all: as Markdown mounted in parts of about `PART_SIZE` characters (cut
between blocks, never inside a code fence), one at a time with the event loop free in between, up to
`MARKDOWN_LIMIT`; beyond that as plain text in `WrappedText`, which wraps the text to the width in a thread and
draws only the lines on screen (mounting 5 MB as parts of Statics had taken over a minute, keys 0.2–0.9 s late
meanwhile), keeping memory a small multiple of the text. Copying a message always copies all of it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.cells import get_character_cell_size
from rich.segment import Segment
from textual import work
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

#: Characters of a message shown before the rest is folded.
FOLD_LIMIT = 20_000
#: Characters at the end of a folded message shown under the fold note.
END_LIMIT = 4_000
#: Up to this length an unfolded message is Markdown; longer ones are plain text in parts.
MARKDOWN_LIMIT = 200_000
#: Characters per part of a long plain text.
PART_SIZE = 20_000


def fold(text: str, limit: int = FOLD_LIMIT) -> tuple[str, int]:
    """The beginning of `text` to show (cut at a line end near `limit` when there is one) and how much is left."""
    if len(text) <= limit:
        return text, 0
    cut = text.rfind("\n", limit * 4 // 5, limit)
    head = text[: cut if cut > 0 else limit]
    return head, len(text) - len(head)


def fold_middle(text: str, limit: int = FOLD_LIMIT, end_limit: int = END_LIMIT) -> tuple[str, int, str]:
    """`text` folded in the middle: (its beginning, the characters folded between, its end). The end starts at
    a line start when there is one near `end_limit` from the end, and inside a code block that began before
    the fold it is reopened as one, so it renders as it would in the whole."""
    if len(text) <= limit:
        return text, 0, ""
    head, _ = fold(text, limit)
    start = max(len(head), len(text) - end_limit)
    line = text.find("\n", start, start + end_limit // 5)
    start = line + 1 if line >= 0 else start
    if start <= len(head) + 1:  # (hardly longer than the limit: nothing worth a fold between)
        return text, 0, ""
    end = text[start:]
    if sum(1 for line in text[:start].splitlines() if line.lstrip().startswith(("```", "~~~"))) % 2:
        end = "```\n" + end  # (the end begins inside a code block)
    return head, start - len(head), end


def markdown_parts(text: str, size: int = PART_SIZE) -> list[str]:
    """Markdown in pieces of at least `size` characters, cut only at a blank line outside a code fence, so each
    piece renders as it would inside the whole."""
    pieces: list[str] = []
    current: list[str] = []
    length = 0
    fence = ""
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        marker = stripped[:3]
        if marker in ("```", "~~~") and (not fence or marker == fence):
            fence = "" if fence else marker
        current.append(line)
        length += len(line)
        if length >= size and not fence and not stripped.strip():
            pieces.append("".join(current))
            current, length = [], 0
    if current:
        pieces.append("".join(current))
    return pieces


def fold_note(hidden: int, *, receiving: bool = False) -> str:
    if receiving:
        return f"… {hidden:,} more characters arriving (folded; enter shows all once the reply is complete)"
    return f"… {hidden:,} more characters folded · enter shows all · y copies all · s saves it"


class FoldNote(Static):
    """The line under a folded message."""

    DEFAULT_CSS = """
    FoldNote {
        color: $text-muted;
        text-style: italic;
    }
    """

    def __init__(self, hidden: int, *, receiving: bool = False) -> None:
        super().__init__(Content(fold_note(hidden, receiving=receiving)), classes="fold")

    def show(self, hidden: int, *, receiving: bool = False) -> None:
        self.update(Content(fold_note(hidden, receiving=receiving)))


def wrap_lines(text: str, width: int) -> list[str]:
    """`text` as lines of at most `width` cells, broken at spaces where a line has one (fast for ASCII)."""
    width = max(1, width)
    lines: list[str] = []
    for paragraph in text.replace("\t", "    ").split("\n"):
        if paragraph.isascii():
            while len(paragraph) > width:
                cut = paragraph.rfind(" ", 0, width + 1)
                cut = cut if cut > 0 else width
                lines.append(paragraph[:cut])
                paragraph = paragraph[cut:].lstrip(" ")
            lines.append(paragraph)
            continue
        start, cells = 0, 0
        for index, character in enumerate(paragraph):
            size = get_character_cell_size(character)
            if cells + size > width:
                lines.append(paragraph[start:index])
                start, cells = index, 0
            cells += size
        lines.append(paragraph[start:])
    return lines


class WrappedText(Widget):
    """A very long plain text as lines wrapped to the widget's width; only the lines on screen are drawn."""

    DEFAULT_CSS = """
    WrappedText { height: auto; }
    """

    def __init__(self, text: str, *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.text = text
        self.lines: list[str] = []
        self._width = 0
        self.filled = False

    def on_resize(self, event: Resize) -> None:
        width = event.size.width
        if width and width != self._width:
            self._width = width
            self._wrap(width)

    @work(thread=True, exclusive=True, group="wrap", exit_on_error=False)
    def _wrap(self, width: int) -> None:
        lines = wrap_lines(self.text, width)
        self.app.call_from_thread(self._wrapped, width, lines)

    def _wrapped(self, width: int, lines: list[str]) -> None:
        if width != self._width:
            return  # resized meanwhile: a newer wrapping is on its way
        self.lines = lines
        self.filled = True
        self.refresh(layout=True)

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        return max(1, len(self.lines))

    def render_line(self, y: int) -> Strip:
        style = self.rich_style
        line = self.lines[y] if 0 <= y < len(self.lines) else ""
        return Strip([Segment(line, style)]).extend_cell_length(self.size.width, style)


class LongText(Vertical):
    """All of a long (already cleaned) text: Markdown in parts mounted one after another in the background when
    `markdown` is set, else `WrappedText`."""

    DEFAULT_CSS = """
    LongText { height: auto; }
    LongText > Static { width: 1fr; }
    LongText > Markdown { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str, *, markdown: bool = False, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.markdown = markdown
        self.text = text
        self._parts = markdown_parts(text) if markdown else []
        self._filled = False

    @property
    def filled(self) -> bool:
        """Everything is laid out (all parts mounted, or the plain text wrapped)."""
        if self.markdown:
            return self._filled
        return all(isinstance(child, WrappedText) and child.filled for child in self.children) and bool(self.children)

    def compose(self) -> Any:
        if not self.markdown:
            yield WrappedText(self.text)

    def on_mount(self) -> None:
        if self.markdown:
            self.run_worker(self._fill(), group="long-text", exclusive=True, exit_on_error=False)

    async def _fill(self) -> None:
        from visindigo.tui.chat.markdown.live_markdown import LiveMarkdown

        for piece in self._parts:
            await self.mount(LiveMarkdown(piece))
            await asyncio.sleep(0.01)  # let keys and redraws through between parts
        self._parts = []
        self._filled = True
