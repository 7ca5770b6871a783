"""How long the template parser and renderer take on large and hostile templates.

The form re-renders its preview on every key press, so a render of a realistic template must take well
under a frame (16 ms); a hostile template (thousands of unterminated typed placeholders) must still finish
in reasonable time, because the scanner looks at most MAX_SPEC_LENGTH characters past each `{{`.

Run: .venv/bin/python bench/templates_parse.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from visindigo.engine import Prompt
from visindigo.engine.templates import scan
from visindigo.engine.templates.syntax import MAX_SPEC_LENGTH


def clock() -> datetime:
    return datetime(2026, 3, 14, tzinfo=UTC)


def timed(label: str, action: Callable[[], object], repeat: int = 5) -> None:
    best = float("inf")
    for _ in range(repeat):
        scan.cache_clear()
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<66} {best * 1000:9.2f} ms")


def main() -> None:
    typical = Prompt("typical", (
        "Review {{code | textarea:required}} for {{lang | select:options=[\"Python\",\"Rust\"]:default=\"Python\"}}"
        " focusing on {{focus}}; at most {{n | number:min=1:max=20:default=5}} points, today {{CURRENT_DATE}}.\n"
    ) * 5)
    values = {"code": "x = 1\n" * 200, "focus": "naming"}
    timed("typical template (5 blocks, 20 placeholders): scan + render", lambda: typical.render(values, clock=clock))
    warm_start = time.perf_counter()
    for _ in range(100):
        typical.render(values, clock=clock)
    print(f"{'typical template, warm (scan cached), per render':<66} {(time.perf_counter() - warm_start) * 10:9.2f} ms")

    big_text = ("Some prose without placeholders. " * 30 + "{{name}} {{v | number:min=1}}\n") * 1000
    big = Prompt("big", big_text)
    timed(f"1 MB template, 2000 placeholders ({len(big_text) // 1024} KiB): scan + fields", big.fields)
    timed("same: render", lambda: big.render({"name": "n", "v": "2"}, clock=clock))

    hostile_text = '{{x | text:p="' * 20_000
    hostile = Prompt("hostile", hostile_text)
    timed(f"hostile: 20,000 broken typed placeholders back to back ({len(hostile_text) // 1024} KiB)", hostile.problems,
          repeat=1)
    nested_text = "{{x | select:options=[" + "a," * 50_000
    timed(f"hostile: one list of 50,000 items, never closed (limit {MAX_SPEC_LENGTH})",
          lambda: Prompt("n", nested_text).problems(), repeat=1)
    unterminated = '{{x | text:p="' + "no closing quote anywhere " * 40_000
    timed(f"hostile: one value never closed, then {len(unterminated) // 1024} KiB of text",
          lambda: Prompt("u", unterminated).problems(), repeat=1)
    braces = "{{" * 200_000
    timed("hostile: 400 KB of '{{'", lambda: Prompt("b", braces).variables(), repeat=1)


if __name__ == "__main__":
    main()
