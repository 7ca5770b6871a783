"""Counting a long dialog's next request before sending (issue 27): the check a UI makes on every keystroke
of the composer and before each send.

Builds a dialog of 2,000 messages (about 400 KB of text) on a provider whose window is known, then prints the
time of the first `check_fit` (every message measured once), the median of later ones (each message a lookup),
and the median after a new question is drafted (one new message counted). Target: under 20 ms.

    .venv/bin/python bench/context_count.py [--messages 2000] [--repeat 50]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from visindigo.engine import Center, ModelInfo, Provider, Role, Skill
from visindigo.engine.context.fit import check_fit

WORDS = [
    "token",
    "window",
    "cache",
    "model",
    "prompt",
    "answer",
    "branch",
    "summary",
    "ledger",
    "python",
    "server",
    "request",
    "stream",
]


def build(messages: int) -> tuple[Center, object]:
    center = Center()
    model = ModelInfo("m", context_window=1_000_000, max_output_tokens=4096)
    center.add_provider(Provider("p", kind="openai", base_url="http://127.0.0.1:9/v1", models=[model]))
    dialog = center.create_dialog()
    dialog.add_skill(Skill("style", "Answer in plain words. " * 20))
    rng = random.Random(27)
    for number in range(messages):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 60)))
        dialog.append_message(Role.USER if number % 2 == 0 else Role.ASSISTANT, text)
    return center, dialog


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    center, dialog = build(args.messages)

    def timed(draft: str = "") -> float:
        start = time.perf_counter()
        fit = check_fit(center, dialog, draft)  # type: ignore[arg-type]
        elapsed = (time.perf_counter() - start) * 1000
        assert fit is not None
        return elapsed

    first = timed()
    again = statistics.median(timed() for _ in range(args.repeat))
    drafted = statistics.median(timed(f"a new question {n}") for n in range(args.repeat))
    fit = check_fit(center, dialog)  # type: ignore[arg-type]
    assert fit is not None
    print(f"{args.messages} messages, ~{fit.used:,} tokens ({fit.count_source})")
    print(f"first check_fit:            {first:7.2f} ms")
    print(f"later check_fit (median):   {again:7.2f} ms")
    print(f"with a new draft (median):  {drafted:7.2f} ms   target < 20 ms")


if __name__ == "__main__":
    main()
