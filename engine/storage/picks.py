"""The `picks` table (schema 5): comparisons' picks written and read back, oldest first.

A store older than schema 5 read from outside the app (`visindigo scores` never migrates) has no such table:
it holds no picks. A row that no longer reads (losers that are not JSON) is skipped, not fatal, so one bad row
costs one pick and never the scores.
"""

from __future__ import annotations

import json
import logging
import sqlite3

from ..compare.picks import Pick, PickedModel

log = logging.getLogger(__name__)

_COLUMNS = (
    "id, question_dialog_id, winner_dialog_id, winner_provider_id, winner_model_id, losers, created_at, blind, tag"
)


def insert_pick(conn: sqlite3.Connection, pick: Pick) -> int:
    """Write one pick; returns its row id."""
    cursor = conn.execute(
        "INSERT INTO picks (question_dialog_id, winner_dialog_id, winner_provider_id, winner_model_id, losers, "
        "created_at, blind, tag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            pick.question_dialog_id,
            pick.winner.dialog_id,
            pick.winner.provider_id,
            pick.winner.model_id,
            json.dumps([loser.to_json() for loser in pick.losers], ensure_ascii=False),
            pick.created_at,
            int(pick.blind),
            pick.tag,
        ),
    )
    return int(cursor.lastrowid or 0)


def has_picks_table(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'picks'").fetchone()
    return found is not None


def read_picks(conn: sqlite3.Connection) -> list[Pick]:
    """Every readable pick, oldest first (the order the ratings are computed in)."""
    if not has_picks_table(conn):
        return []
    picks = []
    for row in conn.execute(f"SELECT {_COLUMNS} FROM picks ORDER BY created_at, id"):
        pick = _pick_from_row(row)
        if pick is None:
            log.warning("skipping unreadable pick row %s", row[0])
        else:
            picks.append(pick)
    return picks


def _pick_from_row(row: tuple[object, ...]) -> Pick | None:
    row_id, question, winner_dialog, winner_provider, winner_model, losers_text, created, blind, tag = row
    try:
        losers_data = json.loads(str(losers_text))
    except (ValueError, RecursionError):  # a crafted row (deeply nested JSON) costs only itself
        return None
    if not isinstance(losers_data, list):
        return None
    losers = [PickedModel.from_json(item) for item in losers_data]
    if any(loser is None for loser in losers) or not isinstance(created, int | float):
        return None
    return Pick(
        question_dialog_id=str(question),
        winner=PickedModel(str(winner_dialog), str(winner_provider), str(winner_model)),
        losers=tuple(loser for loser in losers if loser is not None),
        created_at=float(created),
        blind=bool(blind),
        tag=str(tag),
        id=int(row_id) if isinstance(row_id, int) else 0,
    )


def copy_picks(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Salvage: the picks a damaged file still holds go into the new one (they point at no row there)."""
    try:
        if not has_picks_table(source):
            return
        rows = list(source.execute(f"SELECT {_COLUMNS} FROM picks"))
    except (sqlite3.DatabaseError, ValueError):
        return
    for row in rows:
        try:
            target.execute(f"INSERT OR IGNORE INTO picks ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        except sqlite3.DatabaseError:
            continue
