"""Markdown that streams cheaply: code blocks stay plain until the reply is complete.

A widget whose content changes is redrawn whole, and a code block grows a line at a time, so while a reply
streams its code block is redrawn once per frame. With syntax colours that is several escape sequences per
token on every line (a 30-line block is ~18 KB per frame at 120 columns); without them it is a few bytes per
line. When the reply is complete its code blocks are coloured in place, the colours made in a thread (the
highlighter of each language loaded in the background while its first block streams), so the last frame shows
the text at once and the colours follow without moving anything. Each frame's text goes in through
`stream_append`, which lays out at most once (see `stream_tail`).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.content import Content
from textual.widgets import Label, Markdown
from textual.widgets._markdown import MarkdownHeader  # (not exported; the class Textual's own append checks)
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

from visindigo.tui.chat.markdown.stream_tail import grow_in_place, settle, without_pending_layout

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore


def keeping_line_breaks() -> MarkdownIt:
    """Textual's parser, with a single line break kept as one, as chat clients show it.

    Markdown joins the lines of a paragraph, so a poem or a "one per line" list from a model read as one
    paragraph. Only the display changes: the stored text is the model's own, and code blocks and tables hold
    no soft breaks, so they stay as they were. (markdown-it's `breaks` option only changes its HTML output;
    Textual reads the tokens, so the soft breaks become hard ones here.)
    """
    global _parser
    if _parser is None:  # made once: Textual asks for a parser on every update and every streamed append
        from markdown_it import MarkdownIt  # on first use: start-up does not need it (tests/test_startup_deferrals)

        _parser = MarkdownIt("gfm-like", {"breaks": True})
        _parser.core.ruler.push("keep_line_breaks", _soft_breaks_to_hard)
    return _parser


_parser: MarkdownIt | None = None


def _soft_breaks_to_hard(state: StateCore) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


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
        self._highlighted_code = content
        self._content = content
        for label in self.query("#code-content").results(Label):
            label.update(content, layout=False)

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
    LiveMarkdown PlainFence > Label {
        min-width: 100%;  /* a code line growing within the block's width needs no layout (see stream_tail) */
    }
    """

    def __init__(self, markdown: str | None = None, *, live: bool = False, classes: str | None = None) -> None:
        super().__init__(markdown, open_links=False, classes=classes, parser_factory=keeping_line_breaks)
        self.live = live

    async def stream_append(self, fragment: str) -> None:
        """One frame's worth of streamed text, with at most one layout (`Markdown.append` made two, and one on
        every frame): the last block grows in place when it can (see `stream_tail`), and the blocks that the
        new text starts are mounted in the same batch, the room reserved under the old last block going."""
        parser = keeping_line_breaks()
        self._markdown = self.source + fragment
        unparsed = "".join(self._markdown.splitlines(keepends=True)[self._last_parsed_line :])
        async with self.lock:
            tokens = parser.parse(unparsed)
            existing = [child for child in self.children if isinstance(child, MarkdownBlock)]
            start_line = self._last_parsed_line
            for token in reversed(tokens):
                if token.map is not None and token.level == 0:
                    self._last_parsed_line += token.map[0]
                    break
            new_blocks = list(self._parse_markdown(tokens))
            for block in new_blocks:
                start, end = block.source_range
                block.source_range = (start + start_line, end + start_line)
            headers = any(isinstance(block, MarkdownHeader) for block in new_blocks)
            with self.app.batch_update():
                if existing and new_blocks:
                    last = existing[-1]
                    last.source_range = new_blocks[0].source_range
                    if grow_in_place(last, new_blocks[0]):
                        new_blocks = new_blocks[1:]
                    else:
                        try:
                            await last._update_from_block(without_pending_layout(new_blocks[0]))
                        except IndexError:
                            pass
                        else:
                            new_blocks = new_blocks[1:]
                if new_blocks:
                    if existing and existing[-1].is_attached:
                        settle(existing[-1])
                    await self.mount_all([without_pending_layout(block) for block in new_blocks])
            if headers:
                self._table_of_contents = None
                self.post_message(Markdown.TableOfContentsUpdated(self, self.table_of_contents).set_sender(self))

    def settle_tail(self) -> None:
        """The stream is over: the last block gives back the room reserved for its growth."""
        blocks = [child for child in self.children if isinstance(child, MarkdownBlock)]
        if blocks:
            settle(blocks[-1])

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
        if self.live and block_name in ("fence", "code_block"):
            return PlainFence
        return super().get_block_class(block_name)
