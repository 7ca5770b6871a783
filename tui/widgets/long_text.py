"""Very long messages: shown folded, and in parts when the user asks for all of it.

A 5 MB reply rendered as one Markdown widget took seconds of the event loop (keys echoed 5–8 s late) and
hundreds of MB (a widget per paragraph). So a message longer than `FOLD_LIMIT` shows its beginning and a note
saying how much is folded; enter on it shows all, in parts of about `PART_SIZE` characters mounted one at a
time with the event loop free in between, so keys are answered while it fills in: Markdown parts (cut between
blocks, never inside a code fence) up to `MARKDOWN_LIMIT`, plain text beyond, which keeps memory a small
multiple of the text (a Markdown widget per paragraph of megabytes would not).
Copying a message always copies all of it.
"""

from __future__ import annotations

import asyncio

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

#: Characters of a message shown before the rest is folded.
FOLD_LIMIT = 20_000
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


def parts(text: str, size: int = PART_SIZE) -> list[str]:
    """`text` in pieces of about `size` characters, cut at line ends where possible."""
    pieces = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            newline = text.rfind("\n", start + size // 2, end)
            end = newline + 1 if newline > 0 else end
        pieces.append(text[start:end])
        start = end
    return pieces


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


class LongText(Vertical):
    """All of a long (already cleaned) text in parts, mounted one after another in the background: Markdown
    when `markdown` is set, else plain."""

    DEFAULT_CSS = """
    LongText { height: auto; }
    LongText > Static { width: 1fr; }
    LongText > Markdown { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str, *, markdown: bool = False, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.markdown = markdown
        self._parts = markdown_parts(text) if markdown else parts(text)
        self.filled = False

    def on_mount(self) -> None:
        self.run_worker(self._fill(), group="long-text", exclusive=True, exit_on_error=False)

    async def _fill(self) -> None:
        from .live_markdown import LiveMarkdown

        for piece in self._parts:
            await self.mount(LiveMarkdown(piece) if self.markdown else Static(Content(piece)))
            await asyncio.sleep(0.01)  # let keys and redraws through between parts
        self._parts = []
        self.filled = True
