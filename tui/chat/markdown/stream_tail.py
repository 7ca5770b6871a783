"""The growing end of a streaming reply, redrawn without a layout on most frames.

Textual lays out the whole screen whenever one widget's size may have changed, and a Markdown block whose text
changes asks for exactly that; every frame of a stream then re-arranged every block of the reply and repainted
the pane (~80 % of the streaming CPU). Here the last block of a streaming reply has its height reserved in
steps of `TAIL_STEP` lines: while the new text still fits the block's current box, the frame repaints the
block alone (`refresh()` without `layout=True`), and only a frame whose text outgrows the box, or that starts a
new block, lays out once (the reservation moves to the new last block, the settled block shrinks to its text).

Paragraphs and code blocks grow in place (they are most of what streams), and so does a list whose last item
grows (its last block, recursively) while its other items stay as they were; any other block, and a list that
gains an item, is replaced by its re-parsed self, as Textual does. A block that grows in place repaints only
from the line where its old text ended: a 30-line code block redrew all its lines, and the reserved blank ones,
on every frame.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from rich.cells import cell_len
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.geometry import Region
from textual.visual import visualize
from textual.widget import Widget
from textual.widgets import Label, Static
from textual.widgets._markdown import (  # (not exported)
    MarkdownBullet,
    MarkdownBulletList,
    MarkdownList,
    MarkdownListItem,
    MarkdownParagraph,
)
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

#: Lines reserved under the growing text of the last block, so the next few frames need no layout.
TAIL_STEP = 8


def grow_in_place(block: MarkdownBlock, new: MarkdownBlock) -> bool:
    """Give the streaming reply's last `block` the text of its re-parsed `new` self without a layout when the
    text still fits; False (nothing changed) for blocks that cannot grow in place."""
    if type(block) is not type(new) or not block.is_mounted:
        return False
    if isinstance(block, MarkdownFence) and isinstance(new, MarkdownFence):
        labels = block.query("#code-content")
        if not labels:
            return False
        block._copy_context(new)
        old = block._content
        block._content = new._highlighted_code
        show_grown(labels.first(Label), old, new._highlighted_code, fixed_width=False)
        return True
    if isinstance(block, MarkdownParagraph):
        block._copy_context(new)
        old = block._content
        block._content = new._content
        show_grown(block, old, new._content, fixed_width=True)
        return True
    if isinstance(block, MarkdownList) and isinstance(new, MarkdownList):
        return _grow_list(block, new)
    return False


def _grow_list(block: MarkdownList, new: MarkdownList) -> bool:
    """A mounted list (rows of a bullet and the item's blocks) takes its re-parsed self when only the last
    item's last block changed: that block grows in place; anything else and the list is replaced."""
    children = list(block.children)
    rows = [child for child in children if isinstance(child, Horizontal)]
    items = new._blocks
    if not rows or len(rows) != len(children) or len(items) != len(rows):
        return False
    mounted: list[list[Widget]] = []
    for row, item in zip(rows, items, strict=True):
        bullets = list(row.query_children(MarkdownBullet))
        bodies = list(row.query_children(Vertical))
        if not isinstance(item, MarkdownListItem) or len(bullets) != 1 or len(bodies) != 1:
            return False
        if isinstance(block, MarkdownBulletList) and bullets[0].symbol != item.bullet:
            return False
        mounted.append(list(bodies[0].children))
    *settled, last = mounted
    *settled_items, last_item = items
    for children, item in zip(settled, settled_items, strict=True):
        if not _same_paragraphs(children, item._blocks):
            return False
    if not last or len(last) != len(last_item._blocks):
        return False
    if not _same_paragraphs(last[:-1], last_item._blocks[:-1]):
        return False
    growing, grown = last[-1], last_item._blocks[-1]
    if not isinstance(growing, MarkdownBlock) or not grow_in_place(growing, grown):
        return False
    block._copy_context(new)
    return True


def _same_paragraphs(mounted: list[Widget], parsed: list[MarkdownBlock]) -> bool:
    """Whether settled blocks show what their re-parsed selves would: paragraphs of the same text and styles
    (anything else is not compared, so it makes the list be replaced)."""
    if len(mounted) != len(parsed):
        return False
    for shown, again in zip(mounted, parsed, strict=True):
        if not (isinstance(shown, MarkdownParagraph) and type(again) is MarkdownParagraph):
            return False
        if shown._content.plain != again._content.plain or list(shown._content.spans) != list(again._content.spans):
            return False
    return True


def show_grown(widget: Static, old: Content, content: Content, *, fixed_width: bool) -> None:
    """Show `content`, which `old` grew into: repaint only the lines that changed, unless it outgrew its box
    (then it is laid out, and repainted whole)."""
    keep = unchanged_lines(old, content, _lines_at_this_width(widget)) if widget.size else 0
    # Static.update without its refresh of the whole widget (its private fields: Textual is pinned <9)
    widget._Static__content = content  # type: ignore[attr-defined]
    widget._Static__visual = visualize(widget, content, markup=widget._render_markup)  # type: ignore[attr-defined]
    widget._layout_cache.clear()  # (the visual and the height measured from it, which `reserve` reads)
    widget.clear_cached_dimensions()
    if reserve(widget, content, fixed_width=fixed_width) or keep <= 0:
        widget.refresh()
        return
    lines = _lines_at_this_width(widget) or keep + 1  # (the new text's, measured by `reserve`)
    widget.refresh(Region(0, keep, widget.content_region.width, max(1, lines - keep)))


#: The width each growing block's text was wrapped at in its last frame, and the lines it took (measured by
#: `reserve` anyway); at another width (the terminal was resized) the count says nothing.
_text_lines: WeakKeyDictionary[Widget, tuple[int, int]] = WeakKeyDictionary()


def _lines_at_this_width(widget: Widget) -> int:
    width, lines = _text_lines.get(widget, (0, 0))
    return lines if width == widget.size.width else 0


def unchanged_lines(old: Content, new: Content, old_lines: int) -> int:
    """How many of the `old_lines` lines showing `old` show the same in `new` (0 when unsure: repaint all).

    Text that only grew at its end, with the styles of the old text unchanged (an emphasis closed in the new
    text restyles what came before it), changes only the old last line and what follows: greedy wrapping
    keeps every earlier line where it was (and code does not wrap).
    """
    old_plain = old.plain
    if old_lines <= 1 or not old_plain or not new.plain.startswith(old_plain):
        return 0
    end = len(old_plain)
    if [span for span in new.spans if span.start < end] != list(old.spans):
        return 0
    return old_lines - 1


def reserve(widget: Static, content: Content, *, fixed_width: bool) -> bool:
    """Lay out (once) only when `content` no longer fits `widget`'s box, reserving `TAIL_STEP` more lines;
    True when it asked for that layout.

    A paragraph's width is the pane's (`fixed_width`), so only its height can outgrow the box; a code block's
    text does not wrap, so a longer line widens it too.
    """
    size = widget.size
    gutter = widget.styles.gutter
    if not size:  # not laid out yet (just mounted): its first layout is on its way
        return True
    inner = max(1, size.width - gutter.width)
    laid_out = False
    if fixed_width:
        needed = widget.get_content_height(size, widget.app.size, inner) + gutter.height
    else:  # (a code block's label is at least as wide as the block: see LiveMarkdown's CSS)
        lines = content.plain.split("\n")
        if max(map(cell_len, lines)) > inner:
            widget.refresh(layout=True)
            laid_out = True
        needed = len(lines) + gutter.height
    _text_lines[widget] = (size.width, needed - gutter.height)
    if needed > size.height:
        widget.styles.min_height = needed + TAIL_STEP
        laid_out = True
    return laid_out


def settle(block: Widget) -> None:
    """The block is no longer the growing end: its reserved room goes (it shrinks to its text), from the block
    itself or from what grew inside it (a code block's text, a list item's paragraph)."""
    for widget in (block, *block.query("*")):
        if widget.styles.inline.min_height is not None:
            widget.styles.min_height = None


def without_pending_layout(block: MarkdownBlock) -> MarkdownBlock:
    """A block about to be mounted, no longer asking for a layout of its own.

    A parsed block sets its text before it is mounted, which marks it as needing a layout; the mount lays it
    out anyway, and the mark then made it ask for a second layout of the screen right after the first.
    """
    block._layout_required = False
    for child in block._blocks:
        without_pending_layout(child)
    return block
