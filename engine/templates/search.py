"""Fuzzy search over templates: type a few letters of a name, tag or description and find it.

A query matches a text when its characters appear in it in order (case-insensitive). Matches at word
starts and runs of consecutive characters score higher, so "trl" ranks "Translate" above "Control panel".
A query of several words matches when every word matches somewhere; the name counts most, then tags, then
the description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

_WEIGHTS = (1.0, 0.8, 0.5)


def fuzzy_score(query: str, text: str) -> float | None:
    """How well `query` matches `text` (higher is better), or None when it does not match at all."""
    query = query.lower()
    if not query:
        return 0.0
    lowered = text.lower()
    if query in lowered:
        index = lowered.index(query)
        at_word_start = index == 0 or not lowered[index - 1].isalnum()
        return 10.0 * len(query) + (5.0 if at_word_start else 0.0) + (5.0 if index == 0 else 0.0)
    score = 0.0
    position = 0
    previous = -2
    for char in query:
        index = lowered.find(char, position)
        if index < 0:
            return None
        score += 1.0
        if index == previous + 1:
            score += 3.0
        if index == 0 or not lowered[index - 1].isalnum():
            score += 2.0
        score -= min(index - position, 10) * 0.1
        previous = index
        position = index + 1
    return score


def search(items: Iterable[T], query: str, fields: Callable[[T], Sequence[str]]) -> list[T]:
    """The items that match `query`, best first; with an empty query, all items in their order.

    `fields(item)` gives the texts to search, most important first (name, tags, description).
    """
    words = query.split()
    listed = list(items)
    if not words:
        return listed
    scored: list[tuple[float, int, T]] = []
    for order, item in enumerate(listed):
        texts = fields(item)
        total = 0.0
        for word in words:
            best: float | None = None
            for weight, text in zip(_WEIGHTS, texts, strict=False):
                score = fuzzy_score(word, text)
                if score is not None and (best is None or score * weight > best):
                    best = score * weight
            if best is None:
                break
            total += best
        else:
            scored.append((-total, order, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
