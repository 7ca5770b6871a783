"""A damaged store: recognising the damage, and copying what can still be read into a new store.

SQLite reports damaged pages as `SQLITE_CORRUPT` ("database disk image is malformed") or `SQLITE_NOTADB`, and
only when a query touches them, so a store can open fine and fail later on a listing, a search or a write. The
damaged file is moved aside like any unreadable file (never deleted), then read row by row through the tables
themselves (never an index, which may be the damaged part): a row on a damaged page is skipped, every other
dialog and message goes into the new store, and the user is told how many were saved and how many were not.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .schema import INDEXED_CHARACTERS

log = logging.getLogger(__name__)

_CORRUPT = 11  # SQLITE_CORRUPT
_NOTADB = 26  # SQLITE_NOTADB
#: Errors of the disk or the moment, not of the file: BUSY, LOCKED, NOMEM, READONLY, INTERRUPT, IOERR, FULL,
#: CANTOPEN, PERM (3), AUTH. A store failing with one of these is left where it is.
_TRANSIENT = {3, 5, 6, 7, 8, 9, 10, 13, 14, 23}
_FULL = 13
#: How far a scan jumps, doubling each time, to get past a damaged page of row ids (2**40 rows at most).
_MAX_SKIPS = 40
RECOVERED_TITLE = "Recovered messages"


def is_damage(error: BaseException) -> bool:
    """Whether an sqlite3 error means the file is damaged (not busy, full, locked or read-only)."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (_CORRUPT, _NOTADB):
        return True
    text = str(error).lower()
    return "malformed" in text or "not a database" in text


def is_transient(error: BaseException) -> bool:
    """Whether an sqlite3 error comes from the disk or the moment (full, I/O, locked, read-only), not the file.

    On a nearly full disk SQLite reports "disk I/O error" or "database or disk is full" while opening a sound
    store (it cannot create its WAL index); taking that for an unreadable file moved the user's dialogs aside.
    """
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _TRANSIENT
    text = str(error).lower()
    return any(words in text for words in ("disk is full", "disk i/o error", "unable to open", "locked", "readonly"))


def disk_hint(error: BaseException) -> str:
    """What to do about a transient error, as the end of the sentence naming it."""
    code = getattr(error, "sqlite_errorcode", None)
    full = (isinstance(code, int) and code & 0xFF in (_FULL, 10)) or "disk is full" in str(error).lower()
    return " (is the disk full?)" if full else ""


def integrity_problem(conn: sqlite3.Connection) -> str | None:
    """What `PRAGMA quick_check` finds wrong (its first finding), or None for a sound file.

    quick_check reads every page but skips the index-against-table comparison of `integrity_check`; on the
    10,000-dialog store of bench/store_scale.py it is cheap enough for every start (see the README).
    """
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as error:
        return str(error)
    if found is None or found[0] == "ok":
        return None
    return str(found[0])


@dataclass
class Salvage:
    """What a salvage copied and what it could not read."""

    dialogs_saved: int = 0
    messages_saved: int = 0
    dialogs_lost: int = 0
    messages_lost: int = 0
    notes: list[str] = field(default_factory=list)

    def sentence(self) -> str:
        """The counts in words, for the notice."""

        def count(n: int, what: str) -> str:
            return f"{n} {what}{'' if n == 1 else 's'}"

        saved = f"{count(self.dialogs_saved, 'dialog')} and {count(self.messages_saved, 'message')} were copied"
        if self.dialogs_lost or self.messages_lost:
            lost = (
                f"{count(self.dialogs_lost, 'dialog')} and {count(self.messages_lost, 'message')} could not be "
                "read (rows on a damaged page may not even be counted)"
            )
        else:
            lost = "nothing that could be counted was lost"
        return f"{saved} into a new store; {lost}"


def open_source(path: Path) -> sqlite3.Connection:
    """The moved-aside file, opened so that reading it never changes it."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        conn.close()
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?immutable=1", uri=True, check_same_thread=False)
    return conn


def salvage(source: Path, target: sqlite3.Connection) -> Salvage:
    """Copy every readable dialog, message and stream checkpoint of the store file `source` into `target`.

    `target` is a fresh store with the current schema. Messages whose dialog row is lost still go in, under a
    dialog titled "Recovered messages" with the lost dialog's id, so nothing readable is left behind.
    """
    result = Salvage()
    companions = [source.with_name(source.name + suffix) for suffix in ("-wal", "-shm")]
    made_by_us = [path for path in companions if not path.exists()]
    try:
        conn = open_source(source)
    except sqlite3.Error as error:
        result.notes.append(f"the file could not be opened at all ({error})")
        return result
    try:
        dialog_columns = _shared_columns(conn, target, "dialogs")
        message_columns = _shared_columns(conn, target, "messages")
        if "id" not in dialog_columns or not {"dialog_id", "position"} <= set(message_columns):
            result.notes.append("its table layout could not be read")
            return result
        target.execute("BEGIN IMMEDIATE")
        try:
            with _search_index_built_after(target):
                expected = _copy_dialogs(conn, target, dialog_columns, result)
                _copy_messages(conn, target, message_columns, expected, result)
            _copy_drafts(conn, target)
        except BaseException:
            target.execute("ROLLBACK")
            raise
        target.execute("COMMIT")
    finally:
        conn.close()
        for path in made_by_us:  # reading a WAL file creates its companions: leave the folder as it was
            with contextlib.suppress(OSError):
                path.unlink()
    return result


@contextlib.contextmanager
def _search_index_built_after(target: sqlite3.Connection) -> Iterator[None]:
    """Insert without the full-text trigger and build the index once at the end: twenty times faster."""
    found = target.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_fts_insert'"
    ).fetchone()
    if found is None:
        yield
        return
    target.execute("DROP TRIGGER messages_fts_insert")
    yield
    target.execute(found[0])
    # Not 'rebuild', which would index whole messages where the triggers index their beginning (schema 3).
    target.execute("INSERT INTO messages_fts (messages_fts) VALUES ('delete-all')")
    target.execute(
        f"INSERT INTO messages_fts (rowid, content) SELECT id, substr(content, 1, {INDEXED_CHARACTERS}) FROM messages"
    )


def _shared_columns(source: sqlite3.Connection, target: sqlite3.Connection, table: str) -> list[str]:
    """The columns both files have (an older file may lack newer ones; they keep their defaults)."""

    def columns(conn: sqlite3.Connection) -> list[str]:
        try:
            return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]
        except sqlite3.DatabaseError:
            return []

    wanted = columns(target)
    have = set(columns(source))
    return [name for name in wanted if name in have]


def readable_rowids(conn: sqlite3.Connection, table: str) -> Iterator[int]:
    """The row ids of `table` that a scan can reach, jumping past damaged pages."""
    start = 0
    skips = 0
    while skips <= _MAX_SKIPS:
        try:
            for (rowid,) in conn.execute(f"SELECT rowid FROM {table} WHERE rowid > ? ORDER BY rowid", (start,)):
                start = int(rowid)
                skips = 0
                yield start
            return
        except sqlite3.DatabaseError:
            start += 2**skips
            skips += 1


def _rows(conn: sqlite3.Connection, table: str, columns: list[str], result: Salvage, what: str) -> Iterator[Any]:
    select = f"SELECT {', '.join(columns)} FROM {table} WHERE rowid = ?"
    for rowid in readable_rowids(conn, table):
        try:
            row = conn.execute(select, (rowid,)).fetchone()
        except (sqlite3.DatabaseError, ValueError):  # ValueError: text that is not UTF-8
            setattr(result, what, getattr(result, what) + 1)
            continue
        if row is not None:
            yield row


def _copy_dialogs(
    conn: sqlite3.Connection, target: sqlite3.Connection, columns: list[str], result: Salvage
) -> dict[str, int]:
    """Copy the dialog rows; returns each copied dialog's stored message count (to count lost messages)."""
    expected: dict[str, int] = {}
    insert = f"INSERT OR IGNORE INTO dialogs ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    for row in _rows(conn, "dialogs", columns, result, "dialogs_lost"):
        values = dict(zip(columns, row, strict=True))
        if not isinstance(values["id"], str) or not values["id"]:
            result.dialogs_lost += 1
            continue
        target.execute(insert, row)
        expected[values["id"]] = _as_int(values.get("message_count"))
        result.dialogs_saved += 1
    return expected


def _copy_messages(
    conn: sqlite3.Connection,
    target: sqlite3.Connection,
    columns: list[str],
    expected: dict[str, int],
    result: Salvage,
) -> None:
    """Copy the message rows, renumbered per dialog without gaps (appending goes by position)."""
    by_dialog: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for row in _rows(conn, "messages", columns, result, "messages_lost"):
        values = dict(zip(columns, row, strict=True))
        values.pop("id", None)
        dialog_id = values.get("dialog_id")
        if not isinstance(dialog_id, str) or not dialog_id:
            result.messages_lost += 1
            continue
        by_dialog.setdefault(dialog_id, []).append((_as_int(values.get("position")), values))
    now = 0.0
    for dialog_id, messages in by_dialog.items():
        if dialog_id not in expected:
            created = min((_as_float(v.get("created_at")) for _, v in messages), default=now)
            target.execute(
                "INSERT INTO dialogs (id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, 0)",
                (dialog_id, RECOVERED_TITLE, created, created),
            )
            result.dialogs_saved += 1
        messages.sort(key=lambda item: item[0])
        for position, (_, values) in enumerate(messages):
            values["position"] = position
            names = list(values)
            target.execute(
                f"INSERT INTO messages ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                tuple(values[name] for name in names),
            )
        target.execute("UPDATE dialogs SET message_count = ? WHERE id = ?", (len(messages), dialog_id))
        result.messages_saved += len(messages)
        result.messages_lost += max(0, expected.get(dialog_id, 0) - len(messages))
    for dialog_id, count in expected.items():
        if dialog_id not in by_dialog:
            result.messages_lost += count
            target.execute("UPDATE dialogs SET message_count = 0 WHERE id = ?", (dialog_id,))


def _copy_drafts(conn: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Stream checkpoints of dialogs that made it: the next start turns them into messages as usual."""
    columns = _shared_columns(conn, target, "drafts")
    if "dialog_id" not in columns:
        return
    insert = f"INSERT OR IGNORE INTO drafts ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    ignored = Salvage()
    for row in _rows(conn, "drafts", columns, ignored, "messages_lost"):
        dialog_id = row[columns.index("dialog_id")]
        if target.execute("SELECT 1 FROM dialogs WHERE id = ?", (dialog_id,)).fetchone() is None:
            continue
        count = target.execute("SELECT message_count FROM dialogs WHERE id = ?", (dialog_id,)).fetchone()
        values = list(row)
        if "position" in columns:  # renumbering may have moved the end of the dialog
            values[columns.index("position")] = int(count[0])
        with contextlib.suppress(sqlite3.DatabaseError):
            target.execute(insert, values)


def _as_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _as_float(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
