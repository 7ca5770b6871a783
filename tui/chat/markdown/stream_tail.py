"""The growing end of a streaming reply, drawn on Textual's public line API.

Textual lays out the screen whenever a widget's size may have changed, and a Markdown block whose text changes
asks for exactly that: every frame of a stream re-arranged every block of the reply and repainted the pane.
`StreamTail` draws only the block still growing (see `tail_pieces`) from its own cache of lines, as Textual's
`Log` does: `render_line` returns a cached `Strip`, a frame compares the new lines with the cached ones and
repaints only the ones that differ, and the widget's height is reserved in steps (`room` blank lines under the
text), so a frame lays out only when the text outgrows that room or a block settles into the Markdown above.

This room is the only room kept under a streaming reply: the pane sets how much (two thirds of it while it
follows the stream, so it scrolls in jumps of two thirds of a page, never a line at a time), and `text_lines`
never counts it. When a block settles into the Markdown above, the tail gives up the lines that block took here, so the
reply's height, and the pane, stay where they were.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual.containers import ScrollableContainer
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.visual import Visual
from textual.widget import Widget

from visindigo.tui.chat.markdown.tail_pieces import Piece, blocks, pieces

#: Blank lines reserved under the growing text when the pane does not say otherwise.
TAIL_STEP = 8
#: The room is renewed when fewer blank lines than this are left under the text.
ROOM_MARGIN = 3
#: Blocks whose lines are kept between frames (the finished ones waiting in the tail, and the growing one's
#: last versions); past this many they are all drawn again once.
BLOCKS_KEPT = 64


class StreamTail(Widget):
    """The unsettled end of a streaming reply: a paragraph, code block or list drawn line by line."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"em", "strong", "s", "code_inline", "code", "bullet"}

    DEFAULT_CSS = """
    StreamTail {
        width: 1fr;
        height: auto;
        & > .em { text-style: italic; }
        & > .strong { text-style: bold; }
        & > .s { text-style: strike; }
        &:dark > .code_inline { background: $warning 10%; color: $text-warning 95%; }
        &:light > .code_inline { background: $error 5%; color: $text-error 95%; }
        & > .code { color: $text-muted; background: $surface-darken-1; }
        &:light > .code { background: $surface-lighten-1; }
        & > .bullet { color: $text-primary; }
    }
    """

    def __init__(self, *, room: int = TAIL_STEP) -> None:
        super().__init__()
        #: The growing block's Markdown source.
        self.source = ""
        #: Blank lines to keep under the text, so the next frames' lines need no layout.
        self.room = room
        self._rows = 0
        self._lines: list[Strip] = []
        self._width = 0
        #: The lines `holds` drew, reused by the `show` that follows it.
        self._drawn: tuple[str, list[Strip]] | None = None
        #: The lines of each block drawn last time (at `_block_width`): only the growing block is drawn anew.
        self._block_lines: dict[str, list[Strip]] = {}
        self._block_width = 0

    @property
    def text_lines(self) -> int:
        """Lines the growing text takes (the reserved room not counted)."""
        return len(self._lines)

    @property
    def reserved(self) -> int:
        """Lines the widget takes: the text and the room kept under it."""
        return self._rows

    def holds(self, source: str) -> bool:
        """Whether `source` (the growing end: the growing block and, before it, blocks finished since the last
        layout) can be drawn here with no layout, in the room already reserved.

        While it can, finished blocks stay here instead of settling into the Markdown above one by one: mounting
        a block lays out the whole screen, so blocks settle in a batch when the room is used up, a layout that
        renewing the room would have cost anyway.
        """
        width = self.size.width
        if not width or not self.size.height or width != self._width:
            return False
        lines = self._render_text(source, width)
        self._drawn = (source, lines)
        return len(lines) + ROOM_MARGIN <= self._rows

    def show(self, source: str) -> None:
        """Draw `source` (the growing end, all of it): only its changed lines are repainted, and the widget is
        laid out only when the text outgrows the room reserved under it."""
        self.source = source
        width = self.size.width
        if not width:  # not laid out yet: the layout on its way draws it
            self.refresh(layout=True)
            return
        old = self._lines if width == self._width else []
        drawn, self._drawn = self._drawn, None
        reuse = drawn is not None and drawn[0] == source and width == self._width
        new = drawn[1] if drawn is not None and reuse else self._render_lines(width)
        self._lines, self._width = new, width
        if len(new) + ROOM_MARGIN > self._rows or not self.size.height:
            self._rows = len(new) + max(ROOM_MARGIN, self.room)
            self._lay_out(self._rows - self.size.height)
            return
        changed = next((y for y, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        end = max(len(old), len(new))
        if changed < end:
            self.refresh(Region(0, changed, width, end - changed))

    def settled(self, settled: str, source: str) -> None:
        """`settled` went into the Markdown above and `source` is the new growing end: the widget shrinks by the
        lines `settled` takes there (as drawn here, and the line between blocks), so the reply keeps its height."""
        width = self._width
        self.source = source
        self._lines = self._render_lines(width) if width else []
        moved = len(self._render_text(settled, width)) + 1 if width else 0
        rows = self._rows - moved
        if rows < len(self._lines) + ROOM_MARGIN:
            rows = len(self._lines) + max(ROOM_MARGIN, self.room)
        self._rows = rows
        self._lay_out(rows + moved - self.size.height)

    def release(self) -> None:
        """The stream is over: no room reserved, nothing drawn."""
        self.source = ""
        self._lines = []
        self._rows = 0
        self.refresh(layout=True)

    def _lay_out(self, growth: int) -> None:
        """Ask for the layout that gives the widget its new height, `growth` lines more than it has (the text
        moved into the Markdown above counted as still here).

        When that makes the scrolling pane around it overflow for the first time, its scrollbar is shown now,
        in the same layout: Textual decides a scrollbar after a layout, from the virtual size it made, and the
        scrollbar's column then needs a second layout of the screen (the text wraps one column narrower).
        """
        self.refresh(layout=True)
        pane = next((node for node in self.ancestors if isinstance(node, ScrollableContainer)), None)
        if pane is None or pane.show_vertical_scrollbar or pane.styles.overflow_y != "auto" or not pane.size:
            return
        content = max((child.virtual_region_with_margin.bottom for child in pane.displayed_children), default=0)
        if content + growth > pane.container_size.height:  # (the virtual size is at least the pane's height)
            pane.show_vertical_scrollbar = True
            pane.vertical_scrollbar.display = True

    # --- the line API ----------------------------------------------------------------------------------

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:  # (a new width: the text wraps anew)
            self._lines = self._render_lines(width)
            self._width = width
        if self.source or self._rows:
            self._rows = max(self._rows, len(self._lines) + ROOM_MARGIN)
        return self._rows

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        style = self.rich_style
        if 0 <= y < len(self._lines) and self._width == width:
            return self._lines[y].crop_extend(0, width, style)
        return Strip.blank(width, style)

    # --- drawing -----------------------------------------------------------------------------------------

    def _render_lines(self, width: int) -> list[Strip]:
        return self._render_text(self.source, width)

    def _render_text(self, text: str, width: int) -> list[Strip]:
        """`text`'s blocks, one blank line between two (as the Markdown above spaces them)."""
        lines: list[Strip] = []
        if not text.strip() or width <= 0:
            return lines
        if width != self._block_width or len(self._block_lines) > BLOCKS_KEPT:
            self._block_lines, self._block_width = {}, width
        known = self._block_lines
        for block in blocks(text):
            drawn = known.get(block)
            if drawn is None:
                drawn = known[block] = [line for piece in pieces(block) for line in self._render_piece(piece, width)]
            if lines and drawn:
                lines.append(Strip.blank(width, self.rich_style))
            lines.extend(drawn)
        return lines

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._block_lines = {}  # (a new theme: the blocks are drawn in its colours)

    def _render_piece(self, piece: Piece, width: int) -> list[Strip]:
        indent = max(0, piece.indent)
        left = indent + len(piece.prefix)
        inner = max(1, width - left)
        if piece.code:
            code = self.get_component_rich_style("code")
            body = [
                Strip([Segment("  " + line, code)]).crop_extend(0, inner, code)
                for line in ["", *piece.content.plain.split("\n"), ""]
            ]
        else:
            content = piece.content.stylize(f".{piece.style}") if piece.style else piece.content
            body = Visual.to_strips(self, content, inner, None, self.visual_style)
        style = self.rich_style
        out: list[Strip] = []
        for number, strip in enumerate(body):
            first = piece.prefix if number == 0 else " " * len(piece.prefix)
            head = Strip([Segment(" " * indent, style), Segment(first, self.get_component_rich_style("bullet"))])
            out.append(Strip.join([head, strip]) if left else strip)
        return out
