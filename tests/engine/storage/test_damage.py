"""Issue 11 §3: a store with damaged pages is detected, moved aside and salvaged; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.damaged_store import damage
from visindigo.engine import Center, Role
from visindigo.engine.storage import Store, StoreError, database
from visindigo.engine.storage.salvage import STAGE_INDEX, STAGE_MESSAGES, integrity_problem


def fill(home: Path, dialogs: int = 120) -> list[str]:
    center = Center.open(home)
    try:
        ids = []
        for number in range(dialogs):
            dialog = center.create_dialog()
            dialog.append_message(Role.USER, f"question {number} " + "words " * 150)
            dialog.append_message(Role.ASSISTANT, f"answer {number} " + "more words " * 150)
            ids.append(dialog.id)
        return ids
    finally:
        center.close()


def db(home: Path) -> Path:
    return home / "data" / "dialogs.sqlite3"


def test_damage_found_at_start_is_salvaged_into_a_new_store_with_counts(home: Path) -> None:
    ids = fill(home)
    damage(db(home))
    center = Center.open(home)
    try:
        [notice] = [n for n in center.notices if "damaged" in n]
        [moved] = sorted(db(home).parent.glob("dialogs.sqlite3.unreadable-*"))
        assert str(moved) in notice and "were copied into a new store" in notice and "could not be read" in notice
        summaries = center.dialog_summaries()
        assert 0 < len(summaries) <= len(ids)
        assert {s.id for s in summaries} <= set(ids) | {s.id for s in summaries if s.title == "Recovered messages"}
        assert integrity_problem(center.store._conn) is None  # type: ignore[union-attr]
        assert center.search("question")  # the new store's search index was built
        fresh = center.create_dialog()
        fresh.append_message(Role.USER, "the new store takes new dialogs")
    finally:
        center.close()
    assert moved.exists() and moved.stat().st_size > 0  # nothing deleted


def test_damage_found_later_is_recovered_in_place_and_open_dialogs_are_written_again(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(home, 60)
    monkeypatch.setattr(database, "CHECK_AT_OPEN_BYTES", 0)  # as for a big store: no check at open
    center = Center.open(home)
    assert center.store is not None
    heard: list[str] = []
    center.store.on_error = heard.append
    try:
        live = center.create_dialog()
        live.append_message(Role.USER, "written before the damage")
        center.store._conn.execute("PRAGMA cache_size = 0")  # type: ignore[attr-defined]
        damage(db(home), pages=2)
        for dialog_id in center.store.dialog_ids():  # reading every dialog meets the damaged pages
            center.get_dialog(dialog_id)
        summaries = center.dialog_summaries()
        assert heard and "is damaged" in heard[0] and "saved again from memory" in heard[0]
        assert live.id in {s.id for s in summaries}
        live.append_message(Role.ASSISTANT, "and after it")
    finally:
        center.close()
    again = Center.open(home)
    try:
        reloaded = again.get_dialog(live.id)
        assert reloaded is not None and [m.content for m in reloaded.messages][-1] == "and after it"
    finally:
        again.close()


def test_a_read_only_store_reports_damage_instead_of_repairing(home: Path) -> None:
    fill(home, 60)
    damage(db(home))
    before = db(home).read_bytes()
    store = Store.open_read_only(home / "data")
    try:
        with pytest.raises(StoreError, match=r"is damaged .*start Visindigo on it to repair it"):
            store.summaries()
            store.search("question")
            for dialog_id in store.dialog_ids():
                store.load_document(dialog_id)
    finally:
        store.close()
    assert db(home).read_bytes() == before and not list(db(home).parent.glob("*.unreadable-*"))


def test_the_search_index_holds_the_beginning_of_a_huge_message_and_stays_consistent(home: Path) -> None:
    """A 5 MB reply is indexed by its first 100,000 characters (schema 3), and deleting it leaves a sound index."""
    import sqlite3 as sql

    from visindigo.engine.storage.schema import INDEXED_CHARACTERS, MIGRATIONS, migrate

    huge = "periwinkle " + "filler text " * 450_000 + " zanzibar"
    center = Center.open(home)
    try:
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, huge)
        assert [hit.dialog_id for hit in center.search("periwinkle")] == [dialog.id]
        assert center.search("zanzibar") == [] and len(huge) > INDEXED_CHARACTERS
        dialog.truncate_to(0)  # a delete that must name exactly what was indexed
        other = center.create_dialog()
        other.append_message(Role.USER, "periwinkle again")
        assert [hit.dialog_id for hit in center.search("periwinkle")] == [other.id]
    finally:
        center.close()
    # A store indexed whole by schema 2 is cut down by the migration, so its deletes match too.
    old = home / "old.sqlite3"
    conn = sql.connect(old, isolation_level=None)
    migrate(conn, MIGRATIONS[:2])
    conn.execute("INSERT INTO dialogs (id, created_at, updated_at) VALUES ('d', 0, 0)")
    conn.execute("INSERT INTO messages (dialog_id, position, role, content, created_at) VALUES ('d', 0, 'user', ?, 0)",
                 (huge,))  # fmt: skip
    migrate(conn)
    conn.execute("DELETE FROM messages")
    for word in ("periwinkle", "zanzibar"):  # nothing stale is left behind in the index
        assert conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (word,)).fetchone() == (0,)
    assert integrity_problem(conn) is None
    conn.close()


# --- a big store: not checked at open, checked by Store.verify (what the app runs in the background) -----------


def test_a_damaged_big_store_opens_unchecked_and_verify_salvages_it_reporting_progress(
    damaged_big_home: tuple[Path, list[str]],
) -> None:
    home, ids = damaged_big_home
    heard: list[str] = []
    progress: list[tuple[str, int, int]] = []
    center = Center.open(home, on_salvage=lambda *step: progress.append(step))
    try:
        store = center.store
        assert store is not None and not store.checked_at_open  # too big to check at every start
        assert not [n for n in center.notices if "damaged" in n] and not progress
        store.on_error = heard.append
        assert store.verify()  # what quick_check found
        [notice] = heard
        [moved] = sorted(db(home).parent.glob("dialogs.sqlite3.unreadable-*"))
        assert "is damaged" in notice and str(moved) in notice and "were copied into a new store" in notice
        stages = [stage for stage, _, _ in progress]
        assert stages[0] == STAGE_MESSAGES and stages[-1] == STAGE_INDEX
        assert progress[-1][1] == progress[-1][2] > 0  # the index was built for every copied message
        summaries = center.dialog_summaries()
        assert len(summaries) > 0 and {s.id for s in summaries} - set(ids) <= {
            s.id for s in summaries if s.title == "Recovered messages"
        }
        assert integrity_problem(store._conn) is None and store.verify() is None  # sound now, nothing more to do
        assert center.search("question")
        center.create_dialog().append_message(Role.USER, "the new store takes new dialogs")
    finally:
        center.close()
    assert not list(db(home).parent.glob("*.salvaging*"))  # the copy was renamed into place
    assert moved.stat().st_size > database.CHECK_AT_OPEN_BYTES  # the damaged file is kept whole


def test_verify_on_a_sound_big_store_finds_nothing_and_changes_nothing(
    big_store_template: tuple[Path, list[str]], tmp_path: Path
) -> None:
    import shutil

    home = tmp_path / "home"
    shutil.copytree(big_store_template[0], home)
    before = db(home).read_bytes()
    store = Store.open(home / "data")
    try:
        assert not store.checked_at_open and store.verify() is None
    finally:
        store.close()
    assert db(home).read_bytes() == before and not list(db(home).parent.glob("*.unreadable-*"))


def test_the_store_answers_while_a_background_repair_copies(damaged_big_home: tuple[Path, list[str]]) -> None:
    """The copy runs without the store's lock: the app's reads and writes go on (to the damaged file) and an open
    dialog written meanwhile is in the new store, rewritten from memory at the swap."""
    import threading
    import time

    home, _ids = damaged_big_home
    copying, may_finish = threading.Event(), threading.Event()

    def progress(stage: str, done: int, total: int) -> None:
        copying.set()
        may_finish.wait(30)  # hold the copy here until the test has used the store

    center = Center.open(home, on_salvage=progress)
    assert center.store is not None
    try:
        live = center.create_dialog()
        live.append_message(Role.USER, "before the repair")
        worker = threading.Thread(target=center.store.verify)
        worker.start()
        assert copying.wait(60)
        started = time.monotonic()
        listed = center.dialog_summaries()  # the damaged file, read while the copy runs
        live.append_message(Role.ASSISTANT, "written during the repair")
        waited = time.monotonic() - started
        may_finish.set()
        worker.join(120)
        assert waited < 10 and live.id in {s.id for s in listed}  # it did not wait for the repair
        assert center.store.repairs == 1
    finally:
        may_finish.set()
        center.close()
    again = Center.open(home)
    try:
        reloaded = again.get_dialog(live.id)
        assert reloaded is not None and [m.content for m in reloaded.messages] == [
            "before the repair",
            "written during the repair",
        ]
    finally:
        again.close()
