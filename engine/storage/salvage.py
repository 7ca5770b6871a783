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
from collections.abc import Callable, Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from ..record import record
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
#: Rows read one by one after a scan fails, before a scan is tried again.
CAREFUL_ROWS = 256
#: Messages inserted per statement, and indexed per step (each step reports progress).
COPY_PART = 2_000
INDEX_PART = 5_000
FTS_BUFFER_BYTES = 16 * 1024 * 1024
STAGE_MESSAGES = "copying messages"
STAGE_INDEX = "rebuilding the search index"
#: Told (stage, done, total) while a salvage runs; total is an estimate while copying.
SalvageProgress = Callable[[str, int, int], None]


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
    if "disk is full" in str(error).lower():
        return ""  # SQLite said so already
    return " (is the disk full?)" if isinstance(code, int) and code & 0xFF in (_FULL, 10) else ""


def integrity_problem(conn: sqlite3.Connection) -> str | None:
    """What `PRAGMA quick_check` finds wrong (its first finding), or None for a sound file.

    quick_check reads every page but skips the index-against-table comparison of `integrity_check`; on the
    10,000-dialog store of bench/store_scale.py it is cheap enough for every start (see docs/store.md).
    """
    try:
        found = conn.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as error:
        return str(error)
    if found is None or found[0] == "ok":
        return None
    return str(found[0])


@record
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


def salvage(source: Path, target: sqlite3.Connection, progress: SalvageProgress | None = None) -> Salvage:
    """Copy every readable dialog, message and stream checkpoint of the store file `source` into `target`.

    `target` is a fresh store with the current schema, its foreign keys off (a message may arrive before the
    dialog it belongs to is known to be lost). Messages whose dialog row is lost still go in, under a dialog
    titled "Recovered messages" with the lost dialog's id, so nothing readable is left behind. `progress` hears
    (stage, done, total) as it goes: a store of 10,000 dialogs takes tens of seconds.
    """
    result = Salvage()
    report = progress or _no_progress
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
            with _search_index_built_after(target, report):
                expected = _copy_dialogs(conn, target, dialog_columns, result)
                _copy_messages(conn, target, message_columns, expected, result, report)
            _copy_drafts(conn, target)
            from .picks import copy_picks  # not at start-up: it brings the compare package

            copy_picks(conn, target)
            from .blobs import copy_blobs

            copy_blobs(conn, target)
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


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


@contextlib.contextmanager
def _search_index_built_after(target: sqlite3.Connection, report: SalvageProgress) -> Iterator[None]:
    """Insert without the full-text trigger and build the index once at the end, in parts that report progress
    (twenty times faster than the trigger; still most of a salvage: trigram-indexing 200 MB takes a while)."""
    found = target.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_fts_insert'"
    ).fetchone()
    if found is None:
        yield
        return
    target.execute("DROP TRIGGER messages_fts_insert")
    yield
    target.execute(found[0])
    # A larger buffer of pending index entries than the 1 MB default: fewer segments to merge (about a third faster).
    target.execute(f"INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', {FTS_BUFFER_BYTES})")
    # Not 'rebuild', which would index whole messages where the triggers index their beginning (schema 3).
    target.execute("INSERT INTO messages_fts (messages_fts) VALUES ('delete-all')")
    ids = [row[0] for row in target.execute("SELECT id FROM messages ORDER BY id")]
    index = (
        f"INSERT INTO messages_fts (rowid, content) SELECT id, substr(content, 1, {INDEXED_CHARACTERS}) "
        "FROM messages WHERE id BETWEEN ? AND ?"
    )
    for start in range(0, len(ids), INDEX_PART):
        part = ids[start : start + INDEX_PART]
        target.execute(index, (part[0], part[-1]))
        report(STAGE_INDEX, start + len(part), len(ids))
    target.execute("INSERT INTO messages_fts (messages_fts, rank) VALUES ('hashsize', 1048576)")


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


def readable_rowids(conn: sqlite3.Connection, table: str, after: int = 0) -> Iterator[int]:
    """The row ids of `table` past `after` that a scan can reach, jumping past damaged pages."""
    start = after
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
    """Every readable row of `table` as (rowid, *columns), in rowid order, with `what` counting the lost ones.

    Sound parts of the file are read in one scan; where the scan fails (a damaged page, text that is not UTF-8)
    the next stretch is read row by row, each row by its id, skipping what cannot be read, and then the scan
    goes on. Reading every row by its id was a third of a salvage.
    """
    scan = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid > ? ORDER BY rowid"
    one = f"SELECT rowid, {', '.join(columns)} FROM {table} WHERE rowid = ?"
    after = 0
    while True:
        try:
            for row in conn.execute(scan, (after,)):
                after = int(row[0])
                yield row
            return
        except (sqlite3.DatabaseError, ValueError):  # ValueError: text that is not UTF-8
            pass
        for careful, rowid in enumerate(readable_rowids(conn, table, after), start=1):
            after = rowid
            try:
                row = conn.execute(one, (rowid,)).fetchone()
            except (sqlite3.DatabaseError, ValueError):
                setattr(result, what, getattr(result, what) + 1)
                row = None
            if row is not None:
                yield row
            if careful >= CAREFUL_ROWS:
                break
        else:
            return  # the careful reading reached the end of the table


def _copy_dialogs(
    conn: sqlite3.Connection, target: sqlite3.Connection, columns: list[str], result: Salvage
) -> dict[str, int]:
    """Copy the dialog rows; returns each copied dialog's stored message count (to count lost messages)."""
    expected: dict[str, int] = {}
    insert = f"INSERT OR IGNORE INTO dialogs ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    key = columns.index("id")
    counted = columns.index("message_count") if "message_count" in columns else None
    for row in _rows(conn, "dialogs", columns, result, "dialogs_lost"):
        values = row[1:]
        dialog_id = values[key]
        if not isinstance(dialog_id, str) or not dialog_id:
            result.dialogs_lost += 1
            continue
        if target.execute(insert, values).rowcount:
            expected[dialog_id] = _as_int(values[counted]) if counted is not None else 0
            result.dialogs_saved += 1
    return expected


def _copy_messages(
    conn: sqlite3.Connection,
    target: sqlite3.Connection,
    columns: list[str],
    expected: dict[str, int],
    result: Salvage,
    report: SalvageProgress,
) -> None:
    """Copy the message rows as they are read (ids kept), then give dialogs that lost messages positions
    without gaps (appending goes by position) and every dialog its true message count."""
    names = [name for name in columns if name != "id"]
    insert = f"INSERT OR IGNORE INTO messages (id, {', '.join(names)}) VALUES ({', '.join('?' * (len(names) + 1))})"
    picks = [columns.index(name) + 1 for name in names]
    owner = names.index("dialog_id") + 1
    total = sum(expected.values()) or _row_estimate(conn, "messages")
    batch: list[tuple[Any, ...]] = []
    read = 0

    def flush() -> None:
        inserted = target.executemany(insert, batch).rowcount
        result.messages_saved += inserted
        result.messages_lost += len(batch) - inserted  # a position taken twice in a damaged file
        batch.clear()
        report(STAGE_MESSAGES, read, max(total, read))

    for row in _rows(conn, "messages", columns, result, "messages_lost"):
        values = (row[0], *(row[pick] for pick in picks))
        if not isinstance(values[owner], str) or not values[owner]:
            result.messages_lost += 1
            continue
        batch.append(values)
        read += 1
        if len(batch) >= COPY_PART:
            flush()
    flush()
    created = target.execute(
        "INSERT INTO dialogs (id, title, created_at, updated_at, message_count) "
        "SELECT dialog_id, ?, coalesce(min(created_at), 0), coalesce(min(created_at), 0), 0 FROM messages "
        "WHERE dialog_id NOT IN (SELECT id FROM dialogs) GROUP BY dialog_id",
        (RECOVERED_TITLE,),
    )
    result.dialogs_saved += created.rowcount
    _close_gaps(target)
    for dialog_id, count in target.execute(
        "SELECT d.id, (SELECT count(*) FROM messages m WHERE m.dialog_id = d.id) FROM dialogs d"
    ).fetchall():
        result.messages_lost += max(0, expected.get(dialog_id, 0) - int(count))
    target.execute(
        "UPDATE dialogs SET message_count = (SELECT count(*) FROM messages m WHERE m.dialog_id = dialogs.id)"
    )


def _close_gaps(target: sqlite3.Connection) -> None:
    """Renumber the messages of each dialog that lost some (0, 1, 2, … in their stored order)."""
    gapped = target.execute(
        "SELECT dialog_id FROM messages GROUP BY dialog_id HAVING min(position) != 0 OR max(position) != count(*) - 1"
    ).fetchall()
    for (dialog_id,) in gapped:
        ids = [row[0] for row in target.execute(
            "SELECT id FROM messages WHERE dialog_id = ? ORDER BY position, id", (dialog_id,)
        )]  # fmt: skip
        # Out of the way first (negative), so no step meets the (dialog_id, position) uniqueness.
        target.executemany("UPDATE messages SET position = ? WHERE id = ?", [(-1 - n, i) for n, i in enumerate(ids)])
        target.executemany("UPDATE messages SET position = ? WHERE id = ?", list(enumerate(ids)))


def _row_estimate(conn: sqlite3.Connection, table: str) -> int:
    """About how many rows `table` holds, for progress when the dialogs that count them were lost."""
    try:
        found = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    except sqlite3.DatabaseError:
        return 0
    return _as_int(found[0]) if found else 0


def _copy_drafts(conn: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Stream checkpoints of dialogs that made it: the next start turns them into messages as usual."""
    columns = _shared_columns(conn, target, "drafts")
    if "dialog_id" not in columns:
        return
    insert = f"INSERT OR IGNORE INTO drafts ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    ignored = Salvage()
    for row in _rows(conn, "drafts", columns, ignored, "messages_lost"):
        values = list(row[1:])
        dialog_id = values[columns.index("dialog_id")]
        count = target.execute("SELECT message_count FROM dialogs WHERE id = ?", (dialog_id,)).fetchone()
        if count is None:
            continue
        if "position" in columns:  # renumbering may have moved the end of the dialog
            values[columns.index("position")] = int(count[0])
        with contextlib.suppress(sqlite3.DatabaseError):
            target.execute(insert, values)


def _as_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
