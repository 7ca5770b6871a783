"""How long the word diff of two alternative answers takes (the diff screen, alt+d), in CPU seconds.

The diff runs on the app's event loop, once per pair of alternatives. A whole-text word diff costs about the
product of the two token counts (every whitespace token matches every other), so past `WORK_LIMIT` token pairs
the texts are matched by lines first and only the changed stretches word by word (engine/word_diff.py). This
prints the cost of the cases tests/engine/compare/test_word_diff.py bounds at 3 s, and with `--before` the
whole-text word diff of the two long answers (the limit lifted), as it was before the line-first matching.

Run: .venv/bin/python bench/word_diff.py [--before] [--runs 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from visindigo.engine import word_diff as module
from visindigo.engine.word_diff import similarity, word_diff


def long_answer(seed: int, words: int = 8_000) -> str:
    """An answer of `words` words in paragraphs of 60, from a Zipf-like vocabulary (as the test's)."""
    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(3_000)]
    chosen = rng.choices(vocabulary, [1 / (n + 1) for n in range(3_000)], k=words)
    return "".join(word + ("\n\n" if n % 60 == 59 else " ") for n, word in enumerate(chosen))


def cpu(action: Callable[[], object], runs: int) -> tuple[float, float, float]:
    """Median, lowest and highest CPU seconds of `runs` calls."""
    times = []
    for _ in range(runs):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return statistics.median(times), min(times), max(times)


def row(label: str, action: Callable[[], object], runs: int) -> None:
    median, low, high = cpu(action, runs)
    print(f"{label:<62} {median:7.3f} s CPU (runs {low:.3f}–{high:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", action="store_true", help="also the whole-text word diff (about 20-30 s)")
    options = parser.parse_args()

    old, new = long_answer(1), long_answer(2)
    one_word = long_answer(3)
    middle = one_word.index(" ", len(one_word) // 2) + 1
    changed = one_word[:middle] + "CHANGED " + one_word[middle:]
    braces_old = "}\n\n" * 6_000 + "end\n" + "}\n\n" * 6_000 + "done"
    braces_new = "}\n\n" * 3_000 + "new\n" + "}\n\n" * 3_000 + "ends\n" + "}\n\n" * 6_000 + "done"
    short_old, short_new = long_answer(4, 300), long_answer(5, 300)

    row("two 300-word answers that differ", lambda: word_diff(short_old, short_new), options.runs)
    row("two 8,000-word answers that differ", lambda: word_diff(old, new), options.runs)
    row("an 8,000-word answer and itself with one word added", lambda: word_diff(one_word, changed), options.runs)
    row("12,000 lines of '}' with changes between", lambda: word_diff(braces_old, braces_new), options.runs)
    print(f"similarity of the two 8,000-word answers: {similarity(word_diff(old, new)):.2f}")
    if options.before:
        limit = module.WORK_LIMIT
        module.WORK_LIMIT = 10**12  # no line-first matching: the whole-text word diff
        try:
            row("before: two 8,000-word answers, whole-text word diff", lambda: word_diff(old, new), 1)
        finally:
            module.WORK_LIMIT = limit


if __name__ == "__main__":
    main()
