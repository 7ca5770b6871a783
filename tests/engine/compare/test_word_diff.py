"""Word-level diff: runs that rebuild both texts exactly, deletions before insertions, whitespace kept."""

from __future__ import annotations

from visindigo.engine.word_diff import DiffRun, new_side, old_side, similarity, tokens, word_diff


def rebuilt(runs: list[DiffRun]) -> tuple[str, str]:
    return "".join(r.text for r in old_side(runs)), "".join(r.text for r in new_side(runs))


def test_a_changed_word_is_a_deletion_then_an_insertion_and_the_rest_is_equal() -> None:
    runs = word_diff("The sky is blue today.", "The sky is grey today.")
    assert runs == [
        DiffRun("equal", "The sky is "),
        DiffRun("delete", "blue"),
        DiffRun("insert", "grey"),
        DiffRun("equal", " today."),
    ]


def test_insertions_and_deletions_at_the_ends() -> None:
    assert word_diff("a b", "a b c") == [DiffRun("equal", "a b"), DiffRun("insert", " c")]
    assert word_diff("x a b", "a b") == [DiffRun("delete", "x "), DiffRun("equal", "a b")]
    assert word_diff("", "new") == [DiffRun("insert", "new")]
    assert word_diff("same", "same") == [DiffRun("equal", "same")]
    assert word_diff("", "") == []


def test_both_texts_come_back_exactly_with_line_breaks_and_indentation() -> None:
    old = "Steps:\n  1. mix\n  2. bake at 180°C\n\nEnjoy 🍰"
    new = "Steps:\n    1. mix well\n  2. bake at 200°C\nEnjoy!"
    runs = word_diff(old, new)
    assert rebuilt(runs) == (old, new)
    assert "".join(tokens(old)) == old
    kinds = {run.kind for run in runs}
    assert kinds == {"equal", "delete", "insert"}


def test_a_rewritten_sentence_reads_as_one_change() -> None:
    runs = word_diff("Use a list here because order matters.", "Use a tuple here since it never changes.")
    assert [r.kind for r in runs] == ["equal", "delete", "insert", "equal", "delete", "insert"]
    assert rebuilt(runs) == ("Use a list here because order matters.", "Use a tuple here since it never changes.")


def test_common_words_are_matched_in_long_texts_too() -> None:
    old = " ".join(["the"] * 300 + ["end"])
    new = " ".join(["the"] * 300 + ["finish"])
    runs = word_diff(old, new)
    assert runs[0] == DiffRun("equal", " ".join(["the"] * 300) + " ")
    assert runs[1:] == [DiffRun("delete", "end"), DiffRun("insert", "finish")]


def test_similarity() -> None:
    assert similarity(word_diff("a b c", "a b c")) == 1.0
    assert similarity(word_diff("abc", "xyz")) == 0.0
    assert 0.0 < similarity(word_diff("one two three", "one two four")) < 1.0
