"""Word-level diff: runs that rebuild both texts exactly, deletions before insertions, whitespace kept."""

from __future__ import annotations

import random
import time

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


def _long_answer(seed: int, words: int = 8_000) -> str:
    """An answer of `words` words in paragraphs, from a Zipf-like vocabulary (as natural text is)."""
    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(3_000)]
    chosen = rng.choices(vocabulary, [1 / (n + 1) for n in range(3_000)], k=words)
    return "".join(word + ("\n\n" if n % 60 == 59 else " ") for n, word in enumerate(chosen))


def test_two_long_different_answers_are_diffed_in_a_bounded_time_and_still_come_back_exactly() -> None:
    # Two 8,000-word answers took 23 s of CPU (the whitespace tokens all match each other: quadratic), on the
    # app's event loop, again at every s, n or p on the diff screen.
    old, new = _long_answer(1), _long_answer(2)
    started = time.process_time()
    runs = word_diff(old, new)
    assert time.process_time() - started < 3.0
    assert rebuilt(runs) == (old, new)


def test_a_long_answer_changed_in_one_word_still_shows_that_word() -> None:
    old = _long_answer(3)
    new = old.replace("\n\n", "\n\nInserted sentence here. ", 1)
    middle = new.index(" ", len(new) // 2) + 1
    new = new[:middle] + "CHANGED " + new[middle:]
    runs = word_diff(old, new)
    assert rebuilt(runs) == (old, new)
    changed = [run.text for run in runs if run.kind != "equal"]
    assert "".join(changed).strip().split() == ["Inserted", "sentence", "here.", "CHANGED"]
    assert similarity(runs) > 0.99


def test_thousands_of_equal_lines_with_changes_between_them_are_quick_too() -> None:
    old = "}\n\n" * 6_000 + "end\n" + "}\n\n" * 6_000 + "done"
    new = "}\n\n" * 3_000 + "new\n" + "}\n\n" * 3_000 + "ends\n" + "}\n\n" * 6_000 + "done"
    started = time.process_time()
    runs = word_diff(old, new)
    assert time.process_time() - started < 3.0
    assert rebuilt(runs) == (old, new)
