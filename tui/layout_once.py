"""One layout per change: a widget that cannot scroll does not ask for a second layout when it is resized.

After each layout Textual gives every resized widget its new virtual size through a reactive that requests a
layout, so any frame that moved something was laid out twice (the second pass finding nothing to change). The
virtual size needs a layout only for widgets that may show scrollbars; for the others it is set without the extra
layout, as Textual itself does when it scrolls. While a reply streams this halves the layouts, which were most
of the CPU it cost.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget

_textual_size_updated = Widget._size_updated


_SCROLLBARS = ("auto", "scroll")


def shows_scrollbars(widget: Widget) -> bool:
    """Whether the widget may show a scrollbar (whose presence depends on its virtual size); a code block
    scrolls sideways with no scrollbar drawn (its size is 0), so it does not."""
    styles = widget.styles
    return (styles.overflow_x in _SCROLLBARS and styles.scrollbar_size_horizontal > 0) or (
        styles.overflow_y in _SCROLLBARS and styles.scrollbar_size_vertical > 0
    )


def _size_updated(self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
    # (the virtual size is still set, and a container's scroll limits still follow it: only the layout goes)
    return _textual_size_updated(self, size, virtual_size, container_size, layout and shows_scrollbars(self))


def install() -> None:
    """Patch `Widget._size_updated` (idempotent)."""
    Widget._size_updated = _size_updated  # type: ignore[method-assign]
