"""Writes made while a repair copies the damaged store, carried into the copy before it replaces the store.

The copy of a damaged store takes tens of seconds on a big one and runs without the store's mutex, so the app
goes on writing to the damaged file meanwhile. Dialogs the app holds open are written again whole from memory at
the swap; everything else written meanwhile — a rename, a delete and the branches it re-points, a pick, an
input draft, a dialog closed since — would be missing from the copy. `ChangeLog` records what each write touched
(dialog ids and pick ids, not the writes themselves: replaying SQL onto a copy that lost rows could miss its
target), and `carry_over` replaces those dialogs in the copy by their rows as the live file holds them now.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import field
from typing import TYPE_CHECKING

from ..record import record

if TYPE_CHECKING:
    from ..dialog import Dialog

log = logging.getLogger(__name__)

_PICK_COLUMNS = (
    "id, question_dialog_id, winner_dialog_id, winner_provider_id, winner_model_id, losers, created_at, blind, tag"
)


@record
class ChangeLog:
    """What was written while a repair copied: the dialogs touched (created, changed or deleted), the picks
    recorded, and the dialogs whose write failed on the damaged file and that only memory holds now."""

    dialogs: set[str] = field(default_factory=set)
    picks: set[int] = field(default_factory=set)
    #: Written whole from memory after the swap when they are no longer tracked then (tracked ones always are).
    unsaved: dict[str, Dialog] = field(default_factory=dict)

    def touch(self, *dialog_ids: str) -> None:
        self.dialogs.update(dialog_ids)

    def deleted(self, dialog_id: str) -> None:
        self.dialogs.add(dialog_id)
        self.unsaved.pop(dialog_id, None)


def carry_over(live: sqlite3.Connection, copy: sqlite3.Connection, changes: ChangeLog, skip: set[str]) -> list[str]:
    """Make the copy hold what the live file holds for every dialog and pick in `changes` (but the dialogs in
    `skip`, written from memory afterwards); returns the ids of dialogs whose rows could not be read again
    (the copy keeps what it had of them). One transaction on `copy`; the caller commits nothing."""
    unreadable: list[str] = []
    dialog_columns = _columns(copy, "dialogs")
    message_columns = [name for name in _columns(copy, "messages") if name != "id"]  # the copy numbers them
    draft_columns = _columns(copy, "drafts")
    copy.execute("BEGIN IMMEDIATE")
    try:
        for dialog_id in sorted(changes.dialogs - skip):
            try:
                dialog = _read(live, "dialogs", dialog_columns, "id = ?", dialog_id)
                messages = _read(live, "messages", message_columns, "dialog_id = ? ORDER BY position", dialog_id)
                draft = _read(live, "drafts", draft_columns, "dialog_id = ?", dialog_id)
            except (sqlite3.DatabaseError, ValueError) as error:
                log.warning("dialog %s, changed during the repair, could not be read again: %s", dialog_id, error)
                unreadable.append(dialog_id)
                continue
            for table, key in (("drafts", "dialog_id"), ("messages", "dialog_id"), ("dialogs", "id")):
                copy.execute(f"DELETE FROM {table} WHERE {key} = ?", (dialog_id,))
            _insert(copy, "dialogs", dialog_columns, dialog)
            _insert(copy, "messages", message_columns, messages)
            _insert(copy, "drafts", draft_columns, draft)
        if changes.picks:
            _carry_picks(live, copy, changes.picks)
    except BaseException:
        copy.execute("ROLLBACK")
        raise
    copy.execute("COMMIT")
    return unreadable


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]


def _read(conn: sqlite3.Connection, table: str, columns: list[str], where: str, key: str) -> list[tuple[object, ...]]:
    return conn.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE {where}", (key,)).fetchall()


def _insert(conn: sqlite3.Connection, table: str, columns: list[str], found: list[tuple[object, ...]]) -> None:
    if found:
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", found)


def _carry_picks(live: sqlite3.Connection, copy: sqlite3.Connection, ids: set[int]) -> None:
    """Picks recorded during the copy, with their ids (new ones: the copy holds none of them yet)."""
    for pick_id in sorted(ids):
        try:
            row = live.execute(f"SELECT {_PICK_COLUMNS} FROM picks WHERE id = ?", (pick_id,)).fetchone()
        except (sqlite3.DatabaseError, ValueError) as error:
            log.warning("pick %s, recorded during the repair, could not be read again: %s", pick_id, error)
            continue
        if row is not None:
            copy.execute(f"INSERT OR REPLACE INTO picks ({_PICK_COLUMNS}) VALUES ({', '.join('?' * 9)})", row)
