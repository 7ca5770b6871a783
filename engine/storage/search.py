"""Turning what the user typed into a full-text query, and search snippets into text plus highlight spans.

The user types plain words, not FTS5 syntax: every word (or "quoted phrase") must occur, as a substring, in
any script. The trigram index answers terms of three characters or more; a shorter term (common in Chinese,
where two characters make a word) falls back to a scan, which is slower but finds the same things.
"""

from __future__ import annotations

#: Marks around a match inside an FTS5 snippet; control characters that never occur in stored text.
MARK_START = "\x02"
MARK_END = "\x03"
ELLIPSIS = "…"


def query_terms(query: str) -> list[str]:
    """The words and quoted phrases of `query`, unquoted; an unbalanced quote counts as a letter."""
    import shlex  # at the first search, not with every store opened (`visindigo ask` starts without it)

    try:
        parts = shlex.split(query)
    except ValueError:
        parts = query.split()
    return [part for part in (p.strip() for p in parts) if part]


def fts_match(terms: list[str]) -> str | None:
    """An FTS5 MATCH expression requiring every term, or None when a term is too short for trigrams."""
    if not terms or any(len(term) < 3 for term in terms):
        return None
    return " AND ".join('"' + term.replace('"', '""') + '"' for term in terms)


def like_pattern(term: str) -> str:
    """A LIKE pattern (with `\\` as the escape character) matching `term` anywhere."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def split_marks(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """Remove the match marks from a snippet; returns the plain text and the (start, end) of each match."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    length = 0
    start = -1
    for char in marked:
        if char == MARK_START:
            start = length
        elif char == MARK_END:
            if start >= 0:
                spans.append((start, length))
            start = -1
        else:
            text.append(char)
            length += 1
    plain = "".join(text).replace("\r", " ").replace("\n", " ").replace("\t", " ")
    return plain, spans


def make_snippet(content: str, terms: list[str], width: int = 64) -> tuple[str, list[tuple[int, int]]]:
    """A snippet of about `width` characters around the first match, case-insensitively, with match spans.

    Used where the index cannot make one (short terms, dialogs that only live in memory).
    """
    flat = " ".join(content.split())
    lowered = flat.lower()
    first = min((i for i in (lowered.find(t.lower()) for t in terms) if i >= 0), default=-1)
    if first < 0:
        return flat[:width] + (ELLIPSIS if len(flat) > width else ""), []
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    prefix = ELLIPSIS if start > 0 else ""
    window = flat[start:end]
    snippet = prefix + window + (ELLIPSIS if end < len(flat) else "")
    spans = []
    lowered_window = window.lower()
    for term in terms:
        needle = term.lower()
        position = lowered_window.find(needle)
        while position >= 0 and needle:
            spans.append((len(prefix) + position, len(prefix) + position + len(needle)))
            position = lowered_window.find(needle, position + len(needle))
    return snippet, sorted(spans)


def content_matches(content: str, terms: list[str]) -> bool:
    """Whether every term occurs in `content`, ignoring case (the in-memory search)."""
    lowered = content.casefold()
    return all(term.casefold() in lowered for term in terms)
