"""The growing end of a streaming reply, as pieces of text to draw line by line.

While a reply streams, its finished blocks go into the reply's `Markdown` widget (through Textual's public
`Markdown.append`) and only the block still growing — a paragraph, a code block, a list with its last item
growing — is drawn by `StreamTail` on the line API. This module splits the streamed text at its last block
and turns that block's tokens into `Piece`s: a paragraph's inline text with its emphasis (the same component
classes Textual's Markdown styles), a code block's lines, a list item's text after its bullet. Tables, rules
and HTML show their source until they settle, which is at most a frame or two after they are complete.

The split keeps what Textual's own `append` relies on: text before the start of the last top-level block is
never changed by what follows it, so it can be rendered once and for all.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.content import Content, Span

from visindigo.tui.chat.markdown.parser import keeping_line_breaks

if TYPE_CHECKING:
    from markdown_it.token import Token

#: The bullets of nested unordered lists, as Textual's Markdown draws them.
BULLETS = ("• ", "▪ ", "‣ ", "⭑ ", "◦ ")

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Piece:
    """One run of text of the growing block: `prefix` (a bullet) on its first line, `indent` cells before every
    line; `code` is drawn as it is (no wrapping, no inline styles), `style` names a component class for all
    of it (a heading)."""

    content: Content
    prefix: str = ""
    indent: int = 0
    code: bool = False
    style: str = ""


def split_settled(text: str) -> tuple[str, str]:
    """(the finished blocks at the start of `text`, the last block still growing); ("", text) when `text` holds
    one block or none."""
    found = blocks(text)
    if len(found) < 2:
        return "", text
    return "".join(found[:-1]), found[-1]


@functools.lru_cache(maxsize=4)
def blocks(text: str) -> tuple[str, ...]:
    """`text` cut at the start of each top-level block (each part keeps its trailing blank lines).

    (Kept for the last few texts: a frame asks for the blocks of the same text where it splits off the
    finished ones and where the tail draws it.)"""
    tokens = keeping_line_breaks().parse(text)
    starts = [token.map[0] for token in tokens if token.level == 0 and token.map is not None and token.nesting >= 0]
    starts = [start for start in starts if start > 0]
    if not starts:
        return (text,) if text else ()
    lines = text.splitlines(keepends=True)
    cuts = [0, *starts, len(lines)]
    return tuple("".join(lines[a:b]) for a, b in itertools.pairwise(cuts) if b > a)


def pieces(text: str) -> list[Piece]:
    """The pieces that draw `text` (the growing block)."""
    tokens = keeping_line_breaks().parse(text)
    source = text.splitlines()
    found: list[Piece] = []
    lists: list[list[int]] = []  # per open list: [ordered, next number]
    items: list[int] = []  # the width of each open list item's bullet
    bullet = ""
    heading = ""
    skip_until = -1
    for position, token in enumerate(tokens):
        if position < skip_until:
            continue
        kind = token.type
        indent = sum(items)
        if kind in ("bullet_list_open", "ordered_list_open"):
            lists.append([kind == "ordered_list_open", int(str(token.attrs.get("start", 1) or 1))])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            ordered, number = lists[-1] if lists else [False, 1]
            if ordered:
                bullet = f"{number}. "
                lists[-1][1] = number + 1
            else:
                bullet = BULLETS[(len(lists) - 1) % len(BULLETS)]
            items.append(len(bullet))
        elif kind == "list_item_close":
            items.pop()
        elif kind == "heading_open":
            heading = "strong"
        elif kind == "heading_close":
            heading = ""
        elif kind == "inline":
            first = bullet
            bullet = ""
            found.append(Piece(inline_content(token), first, indent - len(first), style=heading))
        elif kind in ("fence", "code_block"):
            found.append(Piece(Content(token.content.rstrip("\n")), bullet, indent - len(bullet), code=True))
            bullet = ""
        elif kind in ("table_open", "hr", "html_block") and token.map is not None:
            start, end = token.map
            found.append(Piece(Content("\n".join(source[start:end])), bullet, indent - len(bullet), code=True))
            bullet = ""
            if kind == "table_open":
                skip_until = next((n for n in range(position, len(tokens)) if tokens[n].type == "table_close"), 0)
    return found


def inline_content(token: Token) -> Content:
    """An inline token as Content, styled as Textual's Markdown styles it (`.em`, `.strong`, `.s`,
    `.code_inline`: component classes the drawing widget declares too)."""
    parts: list[str] = []
    spans: list[Span] = []
    opened: list[tuple[str, int]] = []
    position = 0

    def add(text: str) -> None:
        nonlocal position
        parts.append(text)
        position += len(text)

    for child in token.children or ():
        kind = child.type
        if kind == "text":
            add(_SPACES.sub(" ", child.content))
        elif kind == "hardbreak":
            add("\n")
        elif kind == "softbreak":
            add(" ")
        elif kind == "code_inline":
            start = position
            add(child.content)
            spans.append(Span(start, position, ".code_inline"))
        elif kind in ("em_open", "strong_open", "s_open"):
            opened.append(("." + kind.removesuffix("_open"), position))
        elif kind == "link_open":
            opened.append(("underline", position))
        elif kind == "image":
            add("🖼  " + (f"({child.attrs.get('alt', '')})" if child.attrs.get("alt") else ""))
        elif kind == "html_inline":
            add(child.content)
        elif kind.endswith("_close") and opened:
            style, start = opened.pop()
            spans.append(Span(start, position, style))
    for style, start in opened:  # (an emphasis not closed yet: markdown-it leaves it as text anyway)
        spans.append(Span(start, position, style))
    return Content("".join(parts), spans=spans)
