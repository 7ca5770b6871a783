"""The Markdown parser every reply is read with: Textual's, keeping a single line break as one."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
