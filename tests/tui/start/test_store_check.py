"""Issue 11 §3: a damaged big store (over the 32 MB checked at open) is found by the check the app runs after
start-up, repaired behind a progress screen, and reported; `visindigo import` checks it before writing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.damaged_store import db_file
from tests.tui.helpers import main_screen, make_app, wait_until
from visindigo.engine import Center
from visindigo.tui.start.store_repair import StoreRepairScreen

ROOT = Path(__file__).resolve().parents[3]


async def test_the_app_checks_a_big_store_after_start_and_shows_the_repair_as_it_goes(
    damaged_big_home: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, ids = damaged_big_home
    shown: list[tuple[str, int, int]] = []
    real_show = StoreRepairScreen.show

    def seen(screen: StoreRepairScreen, stage: str, done: int, total: int) -> None:
        shown.append((stage, done, total))
        real_show(screen, stage, done, total)

    monkeypatch.setattr(StoreRepairScreen, "show", seen)
    center = Center.open(home)
    assert center.store is not None and not center.store.checked_at_open
    app = make_app(center=center)
    notices: list[str] = []
    real_notify = app.notify
    monkeypatch.setattr(app, "notify", lambda message, **kw: (notices.append(message), real_notify(message, **kw)))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert await wait_until(pilot, lambda: any("is damaged" in n for n in notices), seconds=120)
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert shown, "the repair screen never showed progress"
            assert {stage for stage, _, _ in shown} <= {"copying messages", "rebuilding the search index"}
            assert not isinstance(app.screen, StoreRepairScreen)  # gone once the repair is done
            [notice] = [n for n in notices if "is damaged" in n]
            assert "were copied into a new store" in notice and "saved again from memory" in notice
            tree = main_screen(app).sidebar.dialog_tree
            listed = {s.id for s in center.dialog_summaries()}
            assert listed and all(tree.node_for(dialog_id) is not None for dialog_id in listed)
    finally:
        center.close()
    assert len(list(db_file(home).parent.glob("dialogs.sqlite3.unreadable-*"))) == 1
    assert set(ids) & listed


def test_import_checks_a_big_store_first_and_prints_progress_and_the_counts(
    damaged_big_home: tuple[Path, list[str]], tmp_path: Path
) -> None:
    home, ids = damaged_big_home
    export = tmp_path / "one.json"
    export.write_text(json.dumps({"dialogs": [{"id": "imported", "messages": [{"role": "user", "content": "x"}]}]}))
    env = {**os.environ, "VISINDIGO_HOME": str(home)}
    result = subprocess.run([sys.executable, "-m", "visindigo", "import", str(export)], capture_output=True,
                            text=True, env=env, cwd=ROOT, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr
    assert any(line.startswith("visindigo: repairing the damaged dialog store: copying messages") for line in lines)
    assert any("rebuilding the search index" in line and "(100%)" in line for line in lines), lines
    [notice] = [line for line in lines if "is damaged" in line]
    assert "were copied into a new store" in notice and str(db_file(home).parent) in notice
    assert lines[-1].endswith("1 dialog imported.")
    center = Center.open(home)
    try:
        stored = {s.id for s in center.dialog_summaries()}
        assert "imported" in stored and set(ids) & stored
    finally:
        center.close()


async def test_damage_met_by_opening_a_dialog_is_repaired_in_the_background_behind_the_progress_screen(
    damaged_big_home: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not the check after start-up: the app's own query meets the damage. The repair runs in a worker, the
    screen shows its progress while the app keeps answering, and the query that met it is told why."""
    import threading
    import time

    from visindigo.tui.start import store_check

    monkeypatch.setattr(store_check, "CHECK_AFTER", 3600.0)  # the check after start-up never comes in this test
    home, ids = damaged_big_home
    center = Center.open(home)
    store = center.store
    assert store is not None and not store.checked_at_open
    app = make_app(center=center)
    notices: list[str] = []
    real_notify = app.notify
    monkeypatch.setattr(app, "notify", lambda message, **kw: (notices.append(message), real_notify(message, **kw)))
    copying, may_finish = threading.Event(), threading.Event()
    shown: list[tuple[str, int, int]] = []
    real_show = StoreRepairScreen.show

    def seen(screen: StoreRepairScreen, stage: str, done: int, total: int) -> None:
        shown.append((stage, done, total))
        real_show(screen, stage, done, total)

    monkeypatch.setattr(StoreRepairScreen, "show", seen)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            to_app = store.on_salvage
            assert to_app is not None

            def held(stage: str, done: int, total: int) -> None:
                to_app(stage, done, total)
                copying.set()
                may_finish.wait(120)

            store.on_salvage = held
            screen = main_screen(app)
            slowest = 0.0
            for dialog_id in ids:  # opening every dialog reads every message: one of them meets the damage
                started = time.monotonic()
                await screen.open_dialog_id(dialog_id)
                slowest = max(slowest, time.monotonic() - started)
                if isinstance(app.screen, StoreRepairScreen):
                    break
            assert isinstance(app.screen, StoreRepairScreen), "no query met the damage"
            assert slowest < 30  # the query came back at once: the repair is not on the app's thread
            assert any("being repaired" in n for n in notices)
            assert await wait_until(pilot, copying.is_set, seconds=120)
            # The copy is held half-way: the app still answers, and the screen shows how far the copy is.
            assert await wait_until(pilot, lambda: bool(shown), seconds=30)
            started = time.monotonic()
            await pilot.press("escape")  # the repair screen stays (it cannot be cancelled), the key is handled
            await pilot.pause()
            assert time.monotonic() - started < 10 and isinstance(app.screen, StoreRepairScreen)
            assert "Copying messages" in str(app.screen.query_one("#stage").render())
            may_finish.set()
            assert await wait_until(pilot, lambda: any("is damaged" in n for n in notices), seconds=240)
            assert await wait_until(pilot, lambda: not isinstance(app.screen, StoreRepairScreen), seconds=60)
            assert store.repairs == 1
            tree = main_screen(app).sidebar.dialog_tree
            listed = {s.id for s in center.dialog_summaries()}
            assert await wait_until(pilot, lambda: all(tree.node_for(i) is not None for i in listed), seconds=30)
            opened = next(iter(set(ids) & listed))
            await screen.open_dialog_id(opened)  # the repaired store answers
            assert screen.dialog.id == opened
    finally:
        may_finish.set()
        center.close()
    assert len(list(db_file(home).parent.glob("dialogs.sqlite3.unreadable-*"))) == 1
