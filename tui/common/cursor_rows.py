"""Hints stay readable on the row under the cursor.

Lists draw the secondary parts of a row dim: a model's id and context window, a branch's number, a template's
source, a skill's description. On the cursor's row, dim turns the cursor's own text colour halfway to the cursor's
background — about 2.5:1 in every built-in theme, under the 4.5:1 that text needs (`themes/contrast.py`; the
terminal's own dim does the same). The row under the cursor is the one being read, so there the dim is dropped;
the other rows keep it. Both lists go through Textual's public line API (`render_line`, `Strip`).
"""

from __future__ import annotations

from typing import Any, TypeVar

from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip
from textual.widgets import DataTable, OptionList, Tree

_NOT_DIM = Style(dim=False)

Data = TypeVar("Data")


def undimmed(strip: Strip, background: Color | None = None) -> Strip:
    """`strip` without dim in its segments (only in those drawn on `background`, when it is given)."""

    def plain(style: Style | None) -> Style | None:
        if style is None or not style.dim or (background is not None and style.bgcolor != background):
            return style
        return style + _NOT_DIM

    segments = [Segment(text, plain(style), control) for text, style, control in strip]
    if all(new.style is old.style for new, old in zip(segments, strip, strict=True)):
        return strip
    return Strip(segments, strip.cell_length)


class CursorOptionList(OptionList):
    """An OptionList whose highlighted option shows its dim parts at full strength."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.highlighted is None:
            return strip
        cursor = self.get_visual_style("option-list--option", "option-list--option-highlighted").rich_style
        return undimmed(strip, cursor.bgcolor)


class CursorTree(Tree[Data]):
    """A Tree whose cursor line shows its dim parts at full strength."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.cursor_line < 0 or y + self.scroll_offset.y != self.cursor_line:
            return strip
        return undimmed(strip)


class CursorDataTable(DataTable[Any]):
    """A DataTable whose cursor (row or cell) shows its dim parts at full strength."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.cursor_type == "none" or not self.show_cursor:
            return strip
        return undimmed(strip, self.get_component_rich_style("datatable--cursor").bgcolor)
