"""The lists of tests/suite_plan.py name tests that exist: a renamed or moved test would otherwise silently
leave the quick loop's `slow` set or its xdist group."""

from __future__ import annotations

import ast
from pathlib import Path

from tests import suite_plan

ROOT = Path(__file__).resolve().parents[1]


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


ENTRIES = sorted({*suite_plan.SLOW, *(prefix for prefixes in suite_plan.GROUPS.values() for prefix in prefixes)})


def test_each_entry_names_a_test_folder_file_or_function() -> None:
    gone = []
    for entry in ENTRIES:
        path, _, function = entry.partition("::")
        if not (ROOT / path).exists() or (function and function not in _functions(ROOT / path)):
            gone.append(entry)
    assert not gone, f"no such test (update tests/suite_plan.py): {gone}"


def test_auto_workers_is_one_per_core_and_one_more_at_most_the_cap() -> None:
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    wanted = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    expected = max(1, int(wanted)) if wanted.isdigit() else min(cores + 1, suite_plan.MAX_WORKERS)
    assert suite_plan.auto_workers() == expected
