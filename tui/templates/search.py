"""The template library's search: Textual's own fuzzy matcher (the command palette's), not a second one.

Each word of the query must match somewhere — the name counts most, then the tags, then the description —
and the entries are ordered by the sum of their best matches. The matcher tries every way the letters can
fall in a text, which grows fast with the text's length, so only the start of a long description is searched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from textual.content import Content
from textual.fuzzy import FuzzySearch
from textual.style import Style

T = TypeVar("T")

WEIGHTS = (1.0, 0.8, 0.5)
#: Characters of a field that are searched (a description can be pages long).
SEARCHED_LENGTH = 160

_fuzzy = FuzzySearch()


def search(items: Iterable[T], query: str, fields: Callable[[T], Sequence[str]]) -> list[T]:
    """The items that match `query`, best first (ties keep their order); with an empty query, all of them."""
    words = query.split()
    listed = list(items)
    if not words:
        return listed
    scored: list[tuple[float, int, T]] = []
    for order, item in enumerate(listed):
        texts = [text[:SEARCHED_LENGTH] for text in fields(item)]
        total = 0.0
        for word in words:
            best = max(
                (weight * _fuzzy.match(word, text)[0] for weight, text in zip(WEIGHTS, texts, strict=False)),
                default=0.0,
            )
            if best <= 0:
                break
            total += best
        else:
            scored.append((-total, order, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]


def highlight(text: str, query: str, style: Style | None = None) -> Content:
    """`text` as plain Content (never markup: names come from files) with the matched letters styled."""
    content = Content(text)
    style = style or Style(bold=True, underline=True)
    for word in query.split():
        score, offsets = _fuzzy.match(word, text[:SEARCHED_LENGTH])
        if score:
            for offset in offsets:
                content = content.stylize(style, offset, offset + 1)
    return content
