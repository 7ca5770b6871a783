"""A word-level diff of two texts, for showing two alternative answers side by side or inline.

The texts are split into words and the whitespace between them (`\\S+` and `\\s+` runs), so joining the pieces
gives each text back exactly, line breaks and indentation included. `difflib.SequenceMatcher` (without its
"junk" heuristic, which would treat common words such as "the" as noise in long answers) finds the matching
runs; what is left are deletions (only in the first text) and insertions (only in the second).

Matching costs about the product of the two token counts (every whitespace token matches every other), so past
`WORK_LIMIT` the texts are matched by lines first and only the stretches of lines that changed are diffed word by
word, as long as the work left allows: two long answers that share nothing cost a fraction of a second, not the
half a minute on the app's event loop that a whole-text word diff of two 8,000-word answers took.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

RunKind = Literal["equal", "delete", "insert"]

_TOKENS = re.compile(r"\s+|\S+")
#: Token pairs (old tokens × new tokens) a word diff may take on; about 0.3 s of CPU at most (see the docstring).
WORK_LIMIT = 4_000_000


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
    runs: list[DiffRun] = []
    if len(a) * len(b) <= WORK_LIMIT:
        _diff_pieces(runs, a, b)
        return _fold_lone_spaces(runs)
    budget = WORK_LIMIT
    lines_a, lines_b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    # The lines both texts start and end with are matched as they are; when the equal lines between would cost
    # too much again (the product of their counts: thousands of blank lines, of lone "}"), a line that is in
    # more than 1 % of them does not start a match (difflib's "autojunk").
    head = 0
    while head < min(len(lines_a), len(lines_b)) and lines_a[head] == lines_b[head]:
        head += 1
    tail = 0
    while tail < min(len(lines_a), len(lines_b)) - head and lines_a[-1 - tail] == lines_b[-1 - tail]:
        tail += 1
    _add(runs, "equal", "".join(lines_a[:head]))
    middle_a, middle_b = lines_a[head : len(lines_a) - tail], lines_b[head : len(lines_b) - tail]
    counts_b = Counter(middle_b)
    equal_pairs = sum(counts_b[line] for line in middle_a)
    matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=equal_pairs > WORK_LIMIT)
    for operation, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if operation == "replace":
            words_a, words_b = tokens("".join(middle_a[a_start:a_end])), tokens("".join(middle_b[b_start:b_end]))
            if len(words_a) * len(words_b) <= budget:
                budget -= len(words_a) * len(words_b)
                _diff_pieces(runs, words_a, words_b)
                continue
        _add_opcode(runs, operation, middle_a[a_start:a_end], middle_b[b_start:b_end])
    _add(runs, "equal", "".join(lines_a[len(lines_a) - tail :]))
    return _fold_lone_spaces(runs)


def _diff_pieces(runs: list[DiffRun], a: list[str], b: list[str]) -> None:
    """Add the runs that turn pieces `a` into pieces `b` (tokens, or lines)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for operation, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        _add_opcode(runs, operation, a[a_start:a_end], b[b_start:b_end])


def _add_opcode(runs: list[DiffRun], operation: str, a: list[str], b: list[str]) -> None:
    if operation == "equal":
        _add(runs, "equal", "".join(a))
        return
    if operation in ("delete", "replace"):
        _add(runs, "delete", "".join(a))
    if operation in ("insert", "replace"):
        _add(runs, "insert", "".join(b))


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
