"""Markdown that streams cheaply: code blocks stay plain until the reply is complete.

A widget whose content changes is redrawn whole, and a code block grows a line at a time, so while a reply
streams its code block is redrawn once per frame. With syntax colours that is several escape sequences per
token on every line (a 30-line block is ~18 KB per frame at 120 columns); without them it is a few bytes per
line. The final full render (`update`, after the stream) highlights every block as usual.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence


class PlainFence(MarkdownFence):
    """A code block shown without syntax colours (while its text is still arriving)."""

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return Content(code)


class LiveMarkdown(Markdown):
    """`Markdown` whose code blocks are plain while `live` is set (during streaming)."""

    DEFAULT_CSS = """
    LiveMarkdown PlainFence {
        color: $text-muted;
    }
    """

    def __init__(self, markdown: str | None = None, *, live: bool = False, classes: str | None = None) -> None:
        super().__init__(markdown, open_links=False, classes=classes)
        self.live = live

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        if self.live and block_name in ("fence", "code_block"):
            return PlainFence
        return super().get_block_class(block_name)
