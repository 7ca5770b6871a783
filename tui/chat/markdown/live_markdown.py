"""Markdown that streams cheaply: code blocks stay plain until the reply is complete.

While a reply streams, its finished blocks are appended here with Textual's own `Markdown.append` (the block
still growing is drawn by `stream_tail.StreamTail`, see `reply_stream`). Its code blocks stay without syntax
colours until the reply is complete: colouring is the slow part of a code block (the first use of a lexer
imports and compiles it), and the final render then colours them in place, the colours made in a thread (the
highlighter of each language loaded in the background while its first block streams), so the last frame shows
the text at once and the colours follow without moving anything.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import cast

from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.visual import VisualType
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from visindigo.tui.chat.markdown.parser import keeping_line_breaks
from visindigo.tui.chat.markdown.stream_tail import StreamTail
from visindigo.tui.chat.markdown.tail_pieces import split_settled

__all__ = ["LiveMarkdown", "PlainFence", "keeping_line_breaks", "warm_highlighter"]


class PlainFence(MarkdownFence):
    """A code block shown without syntax colours while its text is still arriving, coloured in place after."""

    #: Set once the reply is complete and the colours are shown; a theme change then recolours as a
    #: MarkdownFence does.
    coloured = False

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        warm_highlighter(language)
        return Content(code)

    def colour(self) -> None:
        """Show the code with its syntax colours, made here and now."""
        self.show_coloured(self.coloured_code(self.app.native_ansi_color, self.app.current_theme.dark))

    def coloured_code(self, ansi: bool, dark: bool) -> Content:
        """The code with its colours (safe in a thread: it reads only the code and the arguments)."""
        return MarkdownFence.highlight(self.code, self.lexer, ansi=ansi, dark=dark)

    def show_coloured(self, content: Content) -> None:
        """Show `content`, the same lines coloured: nothing moves, so no layout."""
        self.coloured = True
        self.set_content(content)

    def notify_style_update(self) -> None:
        super().notify_style_update()  # (a MarkdownFence re-highlights here, which for this class is plain)
        if self.coloured:
            self.colour()


#: Languages whose highlighter is loaded (or loading): the first use of a lexer imports its module and compiles
#: its rules, which took most of the final render's ~0.45 s; done in a thread while the code block streams.
_warmed: set[str] = set()


def warm_highlighter(language: str) -> None:
    """Load the highlighter of `language` in a background thread, once per language."""
    if language in _warmed:
        return
    _warmed.add(language)
    threading.Thread(target=_warm, args=(language,), name=f"warm-highlighter-{language}", daemon=True).start()


def _warm(language: str) -> None:
    from textual.highlight import highlight

    with contextlib.suppress(Exception):  # a language Pygments does not know is shown plain anyway
        highlight("x = 1\n", language=language or None)


class LiveMarkdown(Markdown):
    """`Markdown` whose code blocks are plain while `live` is set (during streaming)."""

    DEFAULT_CSS = """
    LiveMarkdown PlainFence {
        color: $text-muted;
    }
    """

    def __init__(self, markdown: str | None = None, *, live: bool = False, classes: str | None = None) -> None:
        super().__init__(markdown, open_links=False, classes=classes, parser_factory=keeping_line_breaks)
        self.live = live
        #: Streamed text not given to Textual's Markdown yet: the block still growing, drawn by the tail.
        self.pending = ""

    def compose(self) -> ComposeResult:
        if self.live:  # (the blocks are mounted before it: see `stream`)
            yield StreamTail()

    @property
    def source(self) -> str:
        """All the text shown, the growing end that the tail draws included."""
        return super().source + self.pending

    @property
    def tail(self) -> StreamTail | None:
        """The widget drawing the growing end, while the reply streams."""
        children = self.children
        if children and isinstance(last := children[-1], StreamTail):  # (where it is kept: no query each frame)
            return last
        tails = self.query_children(StreamTail)
        return tails.first() if tails else None

    async def stream(self, text: str) -> None:
        """Show `text` after what streamed so far: the block still growing, and the blocks finished since the
        last layout, are drawn by the tail, so a frame that only lengthens them lays out nothing; when the tail's
        room is full the finished ones go in through Textual's own `append` (once each: what follows a finished
        block cannot change it), in one layout that also renews the room."""
        tail = self.tail
        whole = self.pending + text
        settled, growing = split_settled(whole)
        if tail is None:  # (not composed yet, or the stream is over: as Textual's own stream would)
            self.pending = ""
            await self.append(whole)
            return
        if not settled or tail.holds(whole):  # (finished blocks settle in a batch once the tail's room is full)
            self.pending = whole
            tail.show(whole)
            return
        self.pending = ""  # (`append` reads `source`, which must hold only what Textual's Markdown has)
        with self.app.batch_update():
            await self.append(settled)
            self.pending = growing
            self.trim_outer_margins(last=False)  # (in this frame's layout, not one more when the view trims it)
            self._keep_tail_last(tail)
            tail.settled(settled, growing)

    async def end_stream(self) -> None:
        """The reply is complete as streamed: its growing end goes into the Markdown too; the tail stays, blank,
        keeping its room until `release_tail` (giving the room back moves the pane: a full repaint)."""
        tail = self.tail
        rest, self.pending = self.pending, ""
        with self.app.batch_update():
            if rest:
                await self.append(rest)
                self.trim_outer_margins(last=False)
            if tail is not None:
                self._keep_tail_last(tail)
                tail.settled(rest, "")

    def release_tail(self) -> None:
        """No more room for streamed text: the tail goes."""
        if (tail := self.tail) is not None:
            tail.remove()

    def trim_outer_margins(self, *, last: bool) -> None:
        """No margin above the first block, and (`last`) none under the last one, so a message's text starts
        beside its gutter and no blank line is added under it. (Inline styles rather than :first-child /
        :last-child rules: those make Textual restyle every block each time one is mounted.)"""
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]  # (not the tail)
        if blocks:
            _top, right, bottom, left = blocks[0].styles.margin  # (textual-speedups' Spacing cannot be sliced)
            blocks[0].styles.margin = (0, right, bottom, left)
            if last:
                top, right, _bottom, left = blocks[-1].styles.margin
                blocks[-1].styles.margin = (top, right, 0, left)

    def _keep_tail_last(self, tail: StreamTail) -> None:
        if self.children and self.children[-1] is not tail:
            self.move_child(tail, after=self.children[-1])

    def colour_in_place(self, markdown: str, then: Callable[[], object] | None = None) -> bool:
        """The final render, when the streamed blocks already are the final ones: colour their code blocks in
        place, in a thread (see `_colour`). Re-rendering the whole reply instead (a full parse, every block
        mounted again, all code coloured at once) held the last frame back by ~0.5 s for a 1,300-token reply.

        `then` is called once the colours are on screen (or at once after the next frame when there is no code).
        Returns False, changing nothing, when what was streamed is not `markdown` (the caller renders in full).
        """
        if self.source != markdown:
            return False
        self.live = False
        fences = list(self.query(PlainFence))
        if fences:
            self._colour(fences, self.app.native_ansi_color, self.app.current_theme.dark, then)
        elif then is not None:
            self.call_after_refresh(then)
        return True

    @work(thread=True, group="colour", exclusive=True, exit_on_error=False)
    def _colour(self, fences: list[PlainFence], ansi: bool, dark: bool, then: Callable[[], object] | None) -> None:
        """Colour the code blocks in a thread, then show them: the event loop stays free, so the reply's last
        frame (its text as streamed) is on screen at once and the colours follow when ready."""
        coloured: list[tuple[PlainFence, Content]] = []
        try:
            coloured = [(fence, fence.coloured_code(ansi, dark)) for fence in fences]
        finally:  # (a highlighter that fails leaves the code plain, and the reply still settles)
            self.app.call_from_thread(self._show_coloured, coloured, ansi, dark, then)

    def _show_coloured(
        self, coloured: list[tuple[PlainFence, Content]], ansi: bool, dark: bool, then: Callable[[], object] | None
    ) -> None:
        if then is not None:
            self.call_after_refresh(then)  # after the frame that shows the colours
        if (ansi, dark) != (self.app.native_ansi_color, self.app.current_theme.dark):
            for fence, _content in coloured:  # the theme changed meanwhile: colour for the new one
                if fence.is_attached:
                    fence.colour()
            return
        for fence, content in coloured:
            if fence.is_attached:
                fence.show_coloured(content)

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        if not self.live:
            return super().get_block_class(block_name)
        if block_name in ("fence", "code_block"):
            return quiet(PlainFence)
        return quiet(super().get_block_class(block_name))


def quiet(block_class: type[MarkdownBlock]) -> type[MarkdownBlock]:
    """`block_class`, made so that the text it is given before it is mounted asks for no layout of its own.

    Textual parses a block and sets its text before mounting it, and setting a widget's text asks for a layout
    even when it is not mounted yet; the mount then lays it out anyway, and the request left over made a second
    layout of the screen right after the first, on every frame that finished a block of a streaming reply.
    (Static.update with `layout=False` until it is mounted: everything else is the block's own.)
    """
    made = _quiet.get(block_class)
    if made is None:

        def update(self: Static, content: VisualType = "", *, layout: bool = True) -> None:
            block_class.update(self, content, layout=layout and self.is_mounted)

        made = cast(
            "type[MarkdownBlock]",
            type(block_class.__name__, (block_class,), {"update": update, "__module__": block_class.__module__}),
        )
        _quiet[block_class] = made
    return made


_quiet: dict[type[MarkdownBlock], type[MarkdownBlock]] = {}
