"""Opening the SQLite file: recognise a corrupt or foreign file, move it aside, bring the schema up to date.

A file we cannot read is never overwritten and never deleted: it is renamed next to where it was (with its
`-wal` and `-shm` companions) and the user is told where it went, so whatever it holds can still be rescued.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from pathlib import Path

from ..sanitize import clean_line
from .errors import StoreError
from .salvage import Salvage, SalvageProgress, disk_hint, integrity_problem, is_damage, is_transient, salvage
from .schema import APPLICATION_ID, LATEST_VERSION, migrate

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
#: Stores up to this size get `PRAGMA quick_check` at every open (about 1.7 ms per MB, so 50 ms at most);
#: on larger ones it would slow every start (390 ms on the 232 MB store of 10,000 dialogs), so the app runs it
#: in the background after start-up instead (`Store.verify`).
CHECK_AT_OPEN_BYTES = 32 * 1024 * 1024
#: The new store a salvage fills, beside the damaged one until it is complete.
SALVAGE_SUFFIX = ".salvaging"


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), without changing anything in the file."""
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)


def configure(conn: sqlite3.Connection) -> None:
    """The pragmas the store relies on; applied only once the file is known to be ours.

    WAL with `synchronous=NORMAL`: a commit survives the process being killed (only a power cut may lose the
    last commits) and costs no fsync, which keeps an append far below a millisecond.
    """
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")


def open_database(
    path: Path, *, check: bool = True, progress: SalvageProgress | None = None
) -> tuple[sqlite3.Connection, list[str]]:
    """Open (or create) the store at `path`; returns the connection and notices for the user.

    A notice is written when an unreadable file was moved aside, and when a damaged one was (found by a quick
    integrity check, `check`, or by a query failing on a damaged page): then what can still be read is copied
    into the new store first. Raises `StoreError` when the file was made by a newer Visindigo (moving it aside
    would hide the user's dialogs from the version that can read them) or when a bad file cannot be moved.
    """
    notices: list[str] = []
    _create_private(path)
    problem = _header_problem(path)
    damaged = False
    if problem is None:
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(path)
            problem = _content_problem(conn, path)
            if problem is None and check and path.stat().st_size <= CHECK_AT_OPEN_BYTES:
                problem = integrity_problem(conn)
                damaged = problem is not None
            if problem is None:
                configure(conn)
                migrate(conn)
                return conn, notices
        except sqlite3.DatabaseError as exc:
            if is_transient(exc):  # a full or failing disk says nothing about the file: never move it aside
                if conn is not None:
                    _close_quietly(conn)
                raise StoreError(
                    f"The dialog store {path} cannot be opened: {exc}{disk_hint(exc)}. It was left as it is."
                ) from None
            damaged = is_damage(exc)
            problem = f"it is damaged ({exc})" if damaged else f"it is not a readable SQLite database ({exc})"
        except BaseException:
            if conn is not None:
                conn.close()
            raise
        if conn is not None:
            _close_quietly(conn)
    if damaged:
        conn, notice = rebuild_damaged(path, problem, progress)
        notices.append(notice)
        return conn, notices
    moved_to = move_aside(path)
    notices.append(
        f"The dialog store {path} could not be used: {problem}. It was moved to {moved_to} (nothing was "
        "deleted) and a new, empty store was started."
    )
    log.warning("moved an unusable store aside: %s -> %s (%s)", path, moved_to, problem)
    return _fresh(path), notices


def rebuild_damaged(
    path: Path, problem: str, progress: SalvageProgress | None = None
) -> tuple[sqlite3.Connection, str]:
    """Replace the damaged store at `path` by a new one holding everything that can be read from it; the damaged
    file is moved aside (never deleted). Returns the new store's connection and the notice for the user.

    The caller has closed its connections to `path`. `Store.recover_from_damage` runs the two halves apart, so
    that the app goes on with the damaged file while the long copy runs.
    """
    building, result = copy_damaged(path, progress)
    return install_copy(path, building, problem, result)


def copy_damaged(path: Path, progress: SalvageProgress | None = None) -> tuple[Path, Salvage]:
    """Copy what can be read from the damaged store at `path` into a new file beside it; returns that file.

    The long half of a repair: only reads `path`, which may stay in use meanwhile. The copy is written without a
    journal (a crash meanwhile leaves the damaged store where it was, to be salvaged at the next start; nearly
    twice as fast as writing it through the WAL) and synced to disk before it is handed over. A disk too full
    for the copy is a `StoreError`, with the damaged file left as it is.
    """
    building = path.with_name(path.name + SALVAGE_SUFFIX)
    conn: sqlite3.Connection | None = None
    try:
        conn = _salvage_target(building)
        result = salvage(path, conn, progress)
    except sqlite3.Error as exc:
        if conn is None or is_transient(exc):
            _discard(conn, building)
            raise StoreError(
                f"The dialog store {path} is damaged, and what can be read from it could not be copied: {exc}"
                f"{disk_hint(exc)}. It was left as it is."
            ) from None
        log.warning("salvaging %s stopped: %s", path, exc)
        result = Salvage(notes=[f"copying stopped ({exc})"])
    try:
        conn.close()
        with open(building, "rb+") as handle:
            os.fsync(handle.fileno())
    except BaseException:
        _discard(conn, building)
        raise
    return building, result


def install_copy(path: Path, building: Path, problem: str, result: Salvage) -> tuple[sqlite3.Connection, str]:
    """The short half: move the damaged store aside and its copy into its place; the caller has closed its
    connections to `path`. Returns the new store's connection and the notice for the user."""
    try:
        moved_to = move_aside(path)
        os.replace(building, path)
    except BaseException:
        _discard(None, building)
        raise
    conn = connect(path)
    configure(conn)
    migrate(conn)
    log.warning("moved a damaged store aside: %s -> %s (%s); %s", path, moved_to, problem, result.sentence())
    notes = f" ({'; '.join(result.notes)})" if result.notes else ""
    notice = (
        f"The dialog store {path} is damaged ({clean_line(problem, 200)}). It was moved to {moved_to} (nothing was "
        f"deleted); {result.sentence()}{notes}."
    )
    return conn, notice


def discard_copy(building: Path) -> None:
    """Remove a salvage's copy that will not be installed."""
    _discard(None, building)


def _salvage_target(path: Path) -> sqlite3.Connection:
    """A new, empty store at `path` for a salvage: no journal, no syncing, foreign keys off, a large cache."""
    for leftover in (path, path.with_name(path.name + "-journal")):  # from a salvage a crash cut short
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
    _create_private(path)
    conn = connect(path)
    try:
        conn.execute("PRAGMA journal_mode = MEMORY")  # a fresh file: only its first pages are ever journaled
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -65536")  # 64 MB
        migrate(conn)
    except BaseException:  # the disk may be too full even for the empty store
        _discard(conn, path)
        raise
    return conn


def _discard(conn: sqlite3.Connection | None, path: Path) -> None:
    if conn is not None:
        _close_quietly(conn)
    with contextlib.suppress(OSError):
        path.unlink()


def _fresh(path: Path) -> sqlite3.Connection:
    _create_private(path)
    conn = connect(path)
    configure(conn)
    migrate(conn)
    return conn


def open_read_only(path: Path) -> sqlite3.Connection:
    """A connection that can only read the store at `path`, for looking at it while the app runs.

    Nothing is created, migrated, moved or recovered: a missing, foreign, damaged or newer file is a
    `StoreError` instead. WAL lets it read while the running app writes; each query sees committed data only.
    """
    if not path.exists():
        raise StoreError(f"There is no dialog store at {path} yet.")
    problem = _header_problem(path)
    # With no app running there is no -wal file and all of the store is in the file itself: read it as immutable,
    # or SQLite would create -wal and -shm files beside it and leave them behind (a reader cannot remove them).
    running = path.with_name(path.name + "-wal").exists()
    mode = "mode=ro" if running else "mode=ro&immutable=1"
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?{mode}", uri=True, check_same_thread=False, timeout=5.0)
    try:
        if problem is None:
            problem = _content_problem(conn, path)
        if problem is None and int(conn.execute("PRAGMA user_version").fetchone()[0]) == 0:
            problem = "it holds no dialogs yet"
    except sqlite3.DatabaseError as exc:
        problem = f"it is not a readable SQLite database ({exc})"
    except BaseException:
        conn.close()
        raise
    if problem is not None:
        _close_quietly(conn)
        raise StoreError(f"The dialog store {path} cannot be read: {problem}.")
    return conn


def _create_private(path: Path) -> None:
    """Create a missing store file readable by its owner only; SQLite gives its WAL files the same mode."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise StoreError(f"The dialog store {path} cannot be created: {exc.strerror or exc}") from exc
    os.close(fd)


def _header_problem(path: Path) -> str | None:
    """Why the file cannot be ours, judged from its first bytes; None when it may be (or does not exist)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"The dialog store {path} cannot be read: {exc.strerror or exc}") from exc
    if not header:
        return None  # an empty file is a fresh database to SQLite
    if header != SQLITE_HEADER:
        return "it is not a SQLite database"
    return None


def _content_problem(conn: sqlite3.Connection, path: Path) -> str | None:
    """Why an SQLite file is not a usable store of ours; reading the schema also surfaces a damaged file."""
    application_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if application_id == 0 and not tables:
        return None  # brand new
    if application_id != APPLICATION_ID:
        return "it is an SQLite database of another program"
    if version > LATEST_VERSION:
        raise StoreError(
            f"The dialog store {path} was written by a newer Visindigo (schema {version}; this one knows up to "
            f"{LATEST_VERSION}). Upgrade Visindigo, or start with --data-dir pointing at another folder."
        )
    conn.execute("SELECT count(*) FROM dialogs").fetchone()
    return None


def _close_quietly(conn: sqlite3.Connection) -> None:
    """Close a connection to a file being given up; an error here changes nothing."""
    try:
        conn.close()
    except sqlite3.Error:
        log.debug("closing an unusable store failed", exc_info=True)


def move_aside(path: Path) -> Path:
    """Rename the file (and its WAL companions) to a free `<name>.unreadable-<time>` name; returns it."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.unreadable-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.unreadable-{stamp}-{counter}")
    try:
        path.rename(target)
        for suffix in ("-wal", "-shm"):
            companion = path.with_name(path.name + suffix)
            if companion.exists():
                companion.rename(target.with_name(target.name + suffix))
    except OSError as exc:
        raise StoreError(
            f"The dialog store {path} cannot be used and could not be moved aside ({exc.strerror or exc}). "
            "Move or rename it yourself, or start with --data-dir pointing at another folder."
        ) from exc
    return target
