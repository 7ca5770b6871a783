"""Issue 11 §3: a full disk, for real — a small tmpfs filled to the last byte, then freed a little at a time.

At each amount of free space `visindigo import` and the app either work or end in one line naming the file and a
non-zero exit; the store is never moved aside (a nearly full disk once made SQLite's "disk I/O error" pass for
an unreadable file), the lock is given back, and every dialog stored before the disk filled is still there.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.damaged_store import damage
from tests.hostile_text import run_in_pty
from tests.small_disk import fill, leave_free, rerun_in_user_namespace, small_disk
from visindigo.cli import main
from visindigo.engine import Center, Role
from visindigo.engine.storage import Store, StoreError
from visindigo.engine.storage.salvage import integrity_problem

ROOT = Path(__file__).resolve().parents[1]
DISK_KB = 1024
FULL_DISK_WORDS = ("No space left on device", "disk is full", "disk I/O error")


def write_exports(folder: Path) -> tuple[Path, Path]:
    kept = folder / "kept.json"
    kept.write_text(json.dumps({"dialogs": [{"id": "kept", "title": "kept", "messages": [
        {"role": "user", "content": "stored before the disk filled " * 200},
        {"role": "assistant", "content": "and its answer"},
    ]}]}))  # fmt: skip
    big = folder / "big.json"  # far more than the free space of any step below
    big.write_text(json.dumps({"dialogs": [
        {"id": f"big{n}", "messages": [{"role": "user", "content": f"words{n} " * 60_000}]} for n in range(3)
    ]}))  # fmt: skip
    return kept, big


def stored_dialogs(data: Path) -> dict[str, list[str]]:
    store = Store.open(data)  # in this process: a lock still held by a failed command would refuse it
    try:
        assert integrity_problem(store._conn) is None
        return {
            dialog_id: [m["content"] for m in (store.load_document(dialog_id) or {}).get("messages", [])]
            for dialog_id in store.dialog_ids()
        }
    finally:
        store.close()


def test_a_full_disk_gives_one_line_frees_the_lock_and_loses_nothing(
    tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    if rerun_in_user_namespace(request):
        return
    kept, big = write_exports(tmp_path)
    env = {**os.environ, "VISINDIGO_HOME": str(tmp_path / "home"), "TERM": "xterm-256color"}
    with small_disk(tmp_path / "disk", DISK_KB) as disk:
        data = disk / "data"
        assert main(["import", str(kept), "--data-dir", str(data)]) == 0
        before = stored_dialogs(data)
        filler = fill(disk)
        assert os.statvfs(disk).f_bavail == 0
        seen = set()
        for free in (0, 4096, 8192, 16384, 32768, 65536, 131072):
            leave_free(filler, free)
            capsys.readouterr()
            status = main(["import", str(big), "--data-dir", str(data)])
            err = capsys.readouterr().err
            assert status == 1 and err.count("\n") == 1 and "Traceback" not in err, (free, err)
            assert err.startswith("visindigo: ") and str(data) in err, (free, err)  # what and where
            assert any(words in err for words in FULL_DISK_WORDS), (free, err)
            seen.add("lock" if "lock file" in err else "store")
            if free <= 8192:  # the app cannot start at all: one line, a non-zero exit (run as the user runs it)
                shown = run_in_pty([sys.executable, "-m", "visindigo", "--data-dir", str(data)], env, cwd=ROOT)
                lines = shown.decode(errors="replace").strip().splitlines()
                assert len(lines) == 1 and lines[0].startswith("visindigo: ") and str(data) in lines[0], shown
                assert any(words in lines[0] for words in FULL_DISK_WORDS), lines
            assert not list(data.glob("*.unreadable-*")), (free, err)  # a sound store is never moved aside
        assert seen == {"lock", "store"}  # both the lock file and SQLite met the full disk
        os.truncate(filler, 0)
        assert stored_dialogs(data) == before  # the lock is free, and nothing stored was lost


def test_a_disk_filling_while_the_store_is_open_loses_nothing(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if rerun_in_user_namespace(request):
        return
    with small_disk(tmp_path / "disk", DISK_KB) as disk:
        center = Center.open(tmp_path / "home", data_dir=disk / "data")
        assert center.store is not None
        heard: list[str] = []
        center.store.on_error = heard.append
        try:
            dialog = center.create_dialog()
            dialog.append_message(Role.USER, "stored")
            filler = fill(disk)
            dialog.append_message(Role.ASSISTANT, "written while the disk is full " * 300)
            dialog.append_message(Role.USER, "and this")
            started = center.create_dialog()  # a new dialog on the full disk: reported, kept in memory
            started.append_message(Role.USER, "begun while the disk is full")
            assert heard and "Could not save dialog" in heard[0], heard
            assert any(words in heard[0] for words in FULL_DISK_WORDS), heard
            assert dialog.message_count == 3  # the dialog in memory lost nothing
            os.truncate(filler, 0)
            dialog.model_id = "any change"  # the next change writes the whole dialog again
            started.model_id = "any change"
        finally:
            center.close()
        with pytest.raises(StoreError, match="cannot be written: No space left on device"):
            leave_free(filler, 0)
            Center.open(tmp_path / "home", data_dir=disk / "data")
        os.truncate(filler, 0)
        again = Center.open(tmp_path / "home", data_dir=disk / "data")  # the failed open gave the lock back
        try:
            reloaded = again.get_dialog(dialog.id)
            assert reloaded is not None and reloaded.to_json() == dialog.to_json()
            begun = again.get_dialog(started.id)
            assert begun is not None and begun.to_json() == started.to_json()
        finally:
            again.close()


def test_a_damaged_store_without_room_for_its_copy_is_left_as_it_is(
    tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    """Salvaging needs room for a second store; without it the damaged one stays in place, untouched, and the
    next try (with room) salvages it."""
    if rerun_in_user_namespace(request):
        return
    kept, _ = write_exports(tmp_path)
    with small_disk(tmp_path / "disk", 8192) as disk:
        data = disk / "data"
        center = Center.open(tmp_path / "home", data_dir=data)
        try:
            for number in range(60):
                center.create_dialog().append_message(Role.USER, f"question {number} " + "words " * 1500)
        finally:
            center.close()
        store_file = data / "dialogs.sqlite3"
        damage(store_file)
        before = store_file.read_bytes()
        filler = fill(disk)
        leave_free(filler, 128 * 1024)
        capsys.readouterr()
        assert main(["import", str(kept), "--data-dir", str(data)]) == 1
        *steps, err = capsys.readouterr().err.splitlines()
        assert all("repairing the damaged dialog store" in step for step in steps)
        assert err.startswith("visindigo: ") and "is damaged, and what can be read from it could not be copied" in err
        assert "disk is full" in err and "It was left as it is." in err and str(store_file) in err
        assert store_file.read_bytes() == before
        assert sorted(p.name for p in data.iterdir()) == ["dialogs.sqlite3", "visindigo.lock"]
        os.truncate(filler, 0)
        assert main(["import", str(kept), "--data-dir", str(data)]) == 0
        err = capsys.readouterr().err
        assert "is damaged" in err and "were copied into a new store" in err and "1 dialog imported" in err, err
        assert "repairing the damaged dialog store: copying messages" in err  # the progress, line by line
        dialogs = stored_dialogs(data)
        assert "kept" in dialogs and 0 < len(dialogs) <= 61
