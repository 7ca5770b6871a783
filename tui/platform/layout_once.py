"""One layout per change: a widget resized by a layout does not ask for a second one.

After each layout Textual gives every resized widget its new virtual size through a reactive that requests a
layout, so any frame that moved something was laid out twice (the second pass finding nothing to change). The
layout just made is what produced that virtual size; what may still depend on it is whether a scrollable
widget shows its scrollbars, and those are reactives of their own that lay out when they change
(`Widget.show_vertical_scrollbar`, set right after from the same size). So the virtual size is set without the
extra layout, as Textual itself does when it scrolls. While a reply streams this halves the layouts, which were
most of the CPU it cost; a pane that grew while following a stream no longer lays out a second time either.

Upstream report: docs/upstream/second-layout-pass.md
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.geometry import Size

if TYPE_CHECKING:
    from textual.widget import Widget

from visindigo.tui.platform import compat

UPSTREAM = "docs/upstream/second-layout-pass.md"

#: Textual's own method, kept once the shim is installed.
_textual: list[Callable[[Widget, Size, Size, Size, bool], bool]] = []


def _size_updated(self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
    # (the virtual size is still set, and a container's scroll limits and scrollbars still follow it)
    return _textual[0](self, size, virtual_size, container_size, False)


def install() -> None:
    """Patch `Widget._size_updated` (idempotent; nothing on a Textual the shim was not checked on)."""
    if _textual or not compat.enabled("layout_once"):
        return
    _textual.append(compat.replace(compat.WIDGET, "_size_updated", _size_updated))
