"""Markdown that streams cheaply: code blocks stay plain until the reply is complete.

A widget whose content changes is redrawn whole, and a code block grows a line at a time, so while a reply
streams its code block is redrawn once per frame. With syntax colours that is several escape sequences per
token on every line (a 30-line block is ~18 KB per frame at 120 columns); without them it is a few bytes per
line. The final full render (`update`, after the stream) highlights every block as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

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

    #: Set by `colour` once the reply is complete; a theme change then recolours as a MarkdownFence does.
    coloured = False

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code)

    def colour(self) -> None:
        """Show the code with its syntax colours: the same lines, so nothing around it moves."""
        self.coloured = True
        self._highlighted_code = self._coloured_code()
        self.set_content(self._highlighted_code)

    def _coloured_code(self) -> Content:
        return MarkdownFence.highlight(
            self.code, self.lexer, ansi=self.app.native_ansi_color, dark=self.app.current_theme.dark
        )

    def notify_style_update(self) -> None:
        super().notify_style_update()  # (a MarkdownFence re-highlights here, which for this class is plain)
        if self.coloured:
            self._highlighted_code = self._coloured_code()
            self.set_content(self._highlighted_code)


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

    def colour_in_place(self, markdown: str) -> bool:
        """The final render, when the streamed blocks already are the final ones: colour their code blocks in
        place. Re-rendering the whole reply instead (a full parse, every block mounted again, all code coloured
        at once) held the last frame back by ~0.5 s for a 1,300-token reply.

        Returns False, changing nothing, when what was streamed is not `markdown` (the caller renders in full).
        """
        if self.source != markdown:
            return False
        self.live = False
        for fence in self.query(PlainFence):
            fence.colour()
        return True

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        if self.live and block_name in ("fence", "code_block"):
            return PlainFence
        return super().get_block_class(block_name)
