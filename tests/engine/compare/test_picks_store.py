"""Picks in the store: schema 5, written and read back across restarts, older stores, salvage, read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.engine.storage.test_damage import damage, fill
from visindigo.engine import Center, Dialog, Message, Role, Skill
from visindigo.engine.compare import Pick, PickedModel, comparison_tag
from visindigo.engine.storage import Store
from visindigo.engine.storage.schema import LATEST_VERSION, MIGRATIONS, migrate


def a_pick(when: float, winner: str = "qwen", *losers: str, tag: str = "", blind: bool = False) -> Pick:
    return Pick(
        question_dialog_id="question",
        winner=PickedModel(f"d-{winner}", "local", winner),
        losers=tuple(PickedModel(f"d-{loser}", "local", loser) for loser in losers or ("llama",)),
        created_at=when,
        blind=blind,
        tag=tag,
    )


def test_picks_outlive_a_restart_in_time_order_with_every_field(tmp_path: Path) -> None:
    home = tmp_path / "home"
    center = Center.open(home)
    later = center.record_pick(a_pick(200.0, "llama", "qwen", "gemma", tag="sql-review", blind=True))
    earlier = center.record_pick(a_pick(100.0))
    assert later.id and earlier.id and later.id != earlier.id
    center.close()

    again = Center.open(home)
    try:
        assert again.picks() == [earlier, later]
        stored = again.picks()[1]
        assert stored.blind is True and stored.tag == "sql-review"
        assert [loser.model_id for loser in stored.losers] == ["qwen", "gemma"]
        assert stored.winner == PickedModel("d-llama", "local", "llama")
    finally:
        again.close()


def test_an_in_memory_center_keeps_picks_too() -> None:
    center = Center()
    pick = center.record_pick(a_pick(5.0))
    assert center.picks() == [pick] and pick.id == 1


def test_a_version_4_store_gains_an_empty_picks_table(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "dialogs.sqlite3", isolation_level=None)
    migrate(conn, MIGRATIONS[:4])
    conn.execute("INSERT INTO dialogs (id, title, created_at, updated_at) VALUES ('d1', 'Old', 1, 1)")
    conn.close()
    store = Store.open(data)
    try:
        assert LATEST_VERSION >= 5  # picks came with version 5; later migrations run too
        assert store._conn.execute("PRAGMA user_version").fetchone() == (LATEST_VERSION,)
        assert store.picks() == []
        assert store.has_dialog("d1")
    finally:
        store.close()


def test_reading_an_older_store_from_outside_finds_no_picks_and_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    conn = sqlite3.connect(data / "dialogs.sqlite3", isolation_level=None)
    migrate(conn, MIGRATIONS[:4])
    conn.close()
    store = Store.open_read_only(data)
    try:
        assert store.picks() == []
    finally:
        store.close()
    conn = sqlite3.connect(data / "dialogs.sqlite3")
    assert conn.execute("PRAGMA user_version").fetchone() == (4,)
    conn.close()


def test_an_unreadable_pick_row_costs_that_pick_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    center = Center.open(home)
    center.record_pick(a_pick(1.0))
    center.record_pick(a_pick(2.0, "llama", "qwen"))
    center.close()
    conn = sqlite3.connect(home / "data" / "dialogs.sqlite3")
    conn.execute("UPDATE picks SET losers = 'not json' WHERE created_at = 1.0")
    conn.commit()
    conn.close()
    again = Center.open(home)
    try:
        assert [pick.winner.model_id for pick in again.picks()] == ["llama"]
    finally:
        again.close()


def test_salvaging_a_damaged_store_keeps_its_picks(tmp_path: Path) -> None:
    home = tmp_path / "home"
    center = Center.open(home)
    kept = center.record_pick(a_pick(1.0, tag="t"))
    center.close()
    fill(home)
    damage(home / "data" / "dialogs.sqlite3")
    again = Center.open(home)
    try:
        assert any("damaged" in notice for notice in again.notices)
        assert again.picks() == [kept]
    finally:
        again.close()


def test_the_tag_is_the_question_template_else_the_dialogs_template_else_its_skill() -> None:
    dialog = Dialog()
    assert comparison_tag(dialog, 0) == ""
    dialog.add_skill(Skill("terse", "Answer briefly."))
    dialog.append_message(Role.USER, "plain question")
    assert comparison_tag(dialog, 1) == "terse"
    dialog.append_message(Role.ASSISTANT, "a")
    dialog.append_message(Message(Role.PROMPT, "filled", name="translate"))
    assert comparison_tag(dialog, 3) == "translate"
    dialog.append_message(Role.ASSISTANT, "b")
    dialog.append_message(Message(Role.PROMPT, "again", name="sql-review"))
    assert comparison_tag(dialog, 5) == "sql-review"  # the question's own template wins
    dialog.append_message(Role.ASSISTANT, "c")
    dialog.append_message(Role.USER, "follow-up")
    assert comparison_tag(dialog, 7) == "translate"  # the dialog's first template
    dialog.append_message(Message(Role.PROMPT, "x", name="\x1b]2;evil\x07bad\nname"))
    assert comparison_tag(dialog, 8) == "bad name"  # one clean line: a name from outside cannot act on a terminal


def test_a_crafted_pick_row_costs_only_itself(tmp_path: Path) -> None:
    """A losers field nested 100,000 deep (json.loads recurses) is skipped; the other picks still count."""
    home = tmp_path / "home"
    center = Center.open(home)
    kept = center.record_pick(a_pick(100.0))
    crafted = center.record_pick(a_pick(200.0))
    center.close()
    conn = sqlite3.connect(home / "data" / "dialogs.sqlite3")
    conn.execute("UPDATE picks SET losers = ? WHERE id = ?", ("[" * 100_000 + "]" * 100_000, crafted.id))
    conn.commit()
    conn.close()
    again = Center.open(home)
    try:
        assert again.picks() == [kept]
    finally:
        again.close()
