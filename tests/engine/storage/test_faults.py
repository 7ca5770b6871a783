"""Faults: a corrupt or foreign file at the store's path, a newer store, two instances, a failing disk."""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from visindigo.engine import Center, Role
from visindigo.engine.storage import StoreError, StoreLocked
from visindigo.engine.storage.schema import LATEST_VERSION

from .conftest import raw_rows, reopen


def db_path(home: Path) -> Path:
    return home / "data" / "dialogs.sqlite3"


def moved_files(home: Path) -> list[Path]:
    return sorted((home / "data").glob("dialogs.sqlite3.unreadable-*"))


def test_a_file_that_is_not_a_database_is_moved_aside_and_reported(home: Path) -> None:
    db_path(home).parent.mkdir(parents=True)
    garbage = b"these are my notes, not a database\n" * 100
    db_path(home).write_bytes(garbage)
    center = Center.open(home)
    try:
        [moved] = moved_files(home)
        assert moved.read_bytes() == garbage  # never overwritten
        [notice] = center.notices
        assert str(db_path(home)) in notice and str(moved) in notice and "not a SQLite database" in notice
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "a fresh store works")
    finally:
        center.close()
    again = Center.open(home)
    try:
        assert again.notices == []
        assert [s.message_count for s in again.dialog_summaries()] == [1]
    finally:
        again.close()


def test_another_programs_sqlite_file_is_moved_aside_untouched(home: Path) -> None:
    db_path(home).parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path(home))
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.execute("INSERT INTO users VALUES ('ada')")
    conn.commit()
    conn.close()
    center = Center.open(home)
    try:
        [moved] = moved_files(home)
        assert "another program" in center.notices[0]
        foreign = sqlite3.connect(moved)
        assert foreign.execute("SELECT name FROM users").fetchall() == [("ada",)]
        assert foreign.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # we changed nothing in it
        foreign.close()
    finally:
        center.close()


def test_a_damaged_store_is_moved_aside(center: Center, home: Path) -> None:
    for i in range(100):
        center.create_dialog().append_message(Role.USER, f"message {i} " * 40)
    center.close()
    intact = db_path(home).read_bytes()
    db_path(home).write_bytes(intact[:8192])  # cut short: pages the schema points to are gone
    again = Center.open(home)
    try:
        [moved] = moved_files(home)
        assert moved.read_bytes() == intact[:8192]
        assert "is damaged" in again.notices[0] and "0 dialogs and 0 messages were copied" in again.notices[0]
        assert again.dialog_summaries() == []
    finally:
        again.close()


def test_a_store_from_a_newer_version_is_refused_and_left_alone(center: Center, home: Path) -> None:
    center.create_dialog()
    center.close()
    conn = sqlite3.connect(db_path(home))
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    before = db_path(home).read_bytes()
    with pytest.raises(StoreError, match="newer Visindigo"):
        Center.open(home)
    assert db_path(home).read_bytes() == before and moved_files(home) == []
    conn = sqlite3.connect(db_path(home))
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION}")
    conn.close()
    Center.open(home).close()  # the lock was released when opening failed


def test_a_second_instance_in_another_process_is_refused_with_a_clear_message(home: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("hold_store.py")), str(home)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLocked) as refused:
            Center.open(home)
        message = str(refused.value)
        assert f"process {holder.pid}" in message and str(home / "data") in message and "--data-dir" in message
    finally:
        holder.kill()
        holder.wait(timeout=10)
    Center.open(home).close()  # the lock died with its holder


def test_two_centers_in_one_process_cannot_share_a_data_directory(center: Center, home: Path) -> None:
    with pytest.raises(StoreLocked):
        Center.open(home)
    other = Center.open(home, data_dir=home / "other-data")  # another folder is fine
    other.close()
    center.close()
    Center.open(home).close()


def test_a_refused_second_instance_reports_the_lock_and_nothing_of_the_config(
    center: Center, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (home / "config" / "config.toml").write_text("theme = 5\n", encoding="utf-8")
    with caplog.at_level(logging.DEBUG), pytest.raises(StoreLocked):
        Center.open(home)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_a_failing_write_is_reported_and_repaired_by_the_next_change(center: Center, home: Path) -> None:
    errors: list[str] = []
    assert center.store is not None
    center.store.on_error = errors.append
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "stored")
    center.store._conn.execute("PRAGMA query_only = ON")  # every write now fails, as on a full disk
    dialog.append_message(Role.ASSISTANT, "not stored yet")
    dialog.append_message(Role.USER, "nor this")
    assert errors and "Could not save dialog" in errors[0] and "readonly" in errors[0]
    assert dialog.message_count == 3  # the dialog itself lost nothing
    center.store._conn.execute("PRAGMA query_only = OFF")
    dialog.model_id = "any change"
    assert raw_rows(home, "SELECT content FROM messages ORDER BY position") == [
        ("stored",),
        ("not stored yet",),
        ("nor this",),
    ]
    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None and loaded.to_json() == dialog.to_json()
    finally:
        again.close()


def test_the_store_files_are_private(center: Center, home: Path) -> None:
    center.create_dialog().append_message(Role.USER, "private")
    if os.name == "posix":
        assert db_path(home).stat().st_mode & 0o077 == 0
        assert (home / "data").stat().st_mode & 0o077 == 0
        assert (home / "data" / "visindigo.lock").stat().st_mode & 0o077 == 0


def test_a_read_only_store_reads_beside_the_app_and_never_changes_or_moves_a_file(center: Center, home: Path) -> None:
    from visindigo.engine.storage import Store

    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "visible to a reader")
    reader = Store.open_read_only(home / "data")  # no lock taken: the open Center holds it
    try:
        assert [s.title for s in reader.summaries()] == ["visible to a reader"]
        dialog.append_message(Role.ASSISTANT, "written after the reader opened")
        document = reader.load_document(dialog.id)
        assert document is not None and len(document["messages"]) == 2
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.set_title(dialog.id, "changed")
    finally:
        reader.close()
    center.create_dialog()  # the Center's lock and writes are unaffected

    empty = home / "nothing-here"
    with pytest.raises(StoreError, match="no dialog store"):
        Store.open_read_only(empty)
    assert not empty.exists()
    empty.mkdir()
    (empty / "dialogs.sqlite3").write_bytes(b"not a database at all")
    with pytest.raises(StoreError, match="cannot be read: it is not a SQLite database"):
        Store.open_read_only(empty)
    assert sorted(p.name for p in empty.iterdir()) == ["dialogs.sqlite3"]  # left where it was
