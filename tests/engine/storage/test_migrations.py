"""Schema versions: an old store is brought up to date in order; a failed step changes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from visindigo.engine.storage import Store
from visindigo.engine.storage.schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS, Migration, migrate


def test_a_version_1_store_gains_search_over_its_old_messages(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "dialogs.sqlite3", isolation_level=None)
    assert migrate(conn, MIGRATIONS[:1]) == ["dialogs and messages"]
    conn.execute("INSERT INTO dialogs (id, title, created_at, updated_at, message_count) VALUES ('d1', 'Old', 1, 1, 1)")
    conn.execute(
        "INSERT INTO messages (dialog_id, position, role, content, created_at) "
        "VALUES ('d1', 0, 'user', 'written before search existed', 1)"
    )
    conn.close()

    store = Store.open(data)
    try:
        assert store._conn.execute("PRAGMA user_version").fetchone() == (LATEST_VERSION,)
        assert store._conn.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
        assert [hit.dialog_id for hit in store.search("before search")] == ["d1"]
        assert store.notices == []
    finally:
        store.close()


def test_migrating_twice_does_nothing_the_second_time(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    assert len(migrate(conn)) == len(MIGRATIONS)
    assert migrate(conn) == []


def test_a_failing_step_rolls_back_and_keeps_the_previous_version(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    broken = (*MIGRATIONS[:1], Migration(2, "broken", "CREATE TABLE half (x);\nTHIS IS NOT SQL;"))
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert conn.execute("PRAGMA user_version").fetchone() == (1,)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchall() == []
