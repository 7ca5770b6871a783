"""A word-level diff of two texts, for showing two alternative answers side by side or inline.

The texts are split into words and the whitespace between them (`\\S+` and `\\s+` runs), so joining the pieces
gives each text back exactly, line breaks and indentation included. `difflib.SequenceMatcher` (without its
"junk" heuristic, which would treat common words such as "the" as noise in long answers) finds the matching
runs; what is left are deletions (only in the first text) and insertions (only in the second).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

RunKind = Literal["equal", "delete", "insert"]

_TOKENS = re.compile(r"\s+|\S+")
#: Beyond this many words per text a diff is quadratic enough to be felt: compare by lines instead.
WORD_LIMIT = 20_000


@dataclass(frozen=True, slots=True)
class DiffRun:
    """A stretch of text that is in both texts ("equal"), only in the first ("delete") or only in the second."""

    kind: RunKind
    text: str


def tokens(text: str) -> list[str]:
    """Words and whitespace runs, in order; `"".join(tokens(t)) == t`."""
    return _TOKENS.findall(text)


def word_diff(old: str, new: str) -> list[DiffRun]:
    """The runs that turn `old` into `new`: a replaced stretch is its deletion followed by its insertion.

    Neighbouring runs of one kind are merged, so a changed sentence is one deletion and one insertion.
    """
    a, b = tokens(old), tokens(new)
    if len(a) > WORD_LIMIT or len(b) > WORD_LIMIT:
        a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    runs: list[DiffRun] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for operation, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if operation == "equal":
            _add(runs, "equal", "".join(a[a_start:a_end]))
            continue
        if operation in ("delete", "replace"):
            _add(runs, "delete", "".join(a[a_start:a_end]))
        if operation in ("insert", "replace"):
            _add(runs, "insert", "".join(b[b_start:b_end]))
    return _fold_lone_spaces(runs)


def _fold_lone_spaces(runs: list[DiffRun]) -> list[DiffRun]:
    """A space that matched between two changes belongs to the change: "because order" → "since it" is one
    change, not two with an "equal" space between them."""
    folded: list[DiffRun] = []
    for index, run in enumerate(runs):
        between_changes = 0 < index < len(runs) - 1 and "equal" not in (runs[index - 1].kind, runs[index + 1].kind)
        if run.kind == "equal" and run.text.isspace() and between_changes:
            _add(folded, "delete", run.text)
            _add(folded, "insert", run.text)
        else:
            _add(folded, run.kind, run.text)
    return folded


def _add(runs: list[DiffRun], kind: RunKind, text: str) -> None:
    if not text:
        return
    if runs and runs[-1].kind == kind:
        runs[-1] = DiffRun(kind, runs[-1].text + text)
    elif kind == "delete" and runs and runs[-1].kind == "insert":
        # keep deletions before insertions: "delete A, insert B, delete C" reads as one change, not three
        inserted = runs.pop()
        _add(runs, "delete", text)
        runs.append(inserted)
    else:
        runs.append(DiffRun(kind, text))


def old_side(runs: list[DiffRun]) -> list[DiffRun]:
    """What the left column of a side-by-side view shows: the first text, its deletions marked."""
    return [run for run in runs if run.kind != "insert"]


def new_side(runs: list[DiffRun]) -> list[DiffRun]:
    """The right column: the second text, its insertions marked."""
    return [run for run in runs if run.kind != "delete"]


def similarity(runs: list[DiffRun]) -> float:
    """The share of characters that both texts have (1.0: the same; 0.0: nothing in common)."""
    same = sum(len(run.text) for run in runs if run.kind == "equal")
    total = sum(len(run.text) for run in runs) + same  # equal text counts once for each side
    return 1.0 if not total else 2 * same / total
