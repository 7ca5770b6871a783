"""Which tests are slow and which must run in one pytest-xdist worker, by path and name (applied by the root
conftest), so that no test file needs a marker of its own and the lists are read in one place.

The suite runs with `-n auto --dist loadgroup` (pyproject.toml): each worker takes tests one by one, except
that all tests of a group go to one worker, one after another:
- "terminal": the app on a pseudo-terminal and the tmux tests (subprocesses reading a pty against a clock);
- "output-stage": the output stage's recorded-session replays (frame timing under load);
- "llama": the interop tests, which share one llama.cpp server per worker (a ~250 MB model, 2 slots);
- "big-store": the tests on a copy of the damaged big store, built once per worker (`big_store_template`).

`slow` marks what the quick loop (`python -m pytest -m "not slow"`) leaves out: each entry costs several
seconds on 2 cores (see `--durations`); the loop keeps at least one test of every area.
"""

from __future__ import annotations

import os

import pytest

#: group → path prefixes (of a node id: a folder, a file, or a file::test)
GROUPS: dict[str, tuple[str, ...]] = {
    "terminal": (
        "tests/tui/platform/test_hostile_terminal.py",
        "tests/tui/platform/test_terminal_gone.py",
        "tests/tui/main/test_leaving.py",
        "tests/tui/common/test_copying.py",
    ),
    "output-stage": ("tests/tui/platform/test_output_stage.py",),
    "llama": ("tests/interop/",),
}
#: group → fixture names: a test that uses one of these is in the group
FIXTURE_GROUPS: dict[str, tuple[str, ...]] = {
    "big-store": ("big_store_template", "damaged_big_home"),
}

#: node-id prefixes of the slow tests
SLOW: tuple[str, ...] = (
    "tests/interop/",
)

#: workers for `-n auto`: one per core, at most this many
MAX_WORKERS = 4


def auto_workers() -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def group_of(item: pytest.Item) -> str | None:
    for group, prefixes in GROUPS.items():
        if item.nodeid.startswith(prefixes):
            return group
    names = set(getattr(item, "fixturenames", ()))
    for group, fixtures in FIXTURE_GROUPS.items():
        if names.intersection(fixtures):
            return group
    return None


def apply(items: list[pytest.Item]) -> None:
    """Mark each collected test: `slow` from SLOW, `xdist_group` from GROUPS (ignored without pytest-xdist)."""
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
