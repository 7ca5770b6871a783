"""The dialog store: dialogs and messages as rows in one SQLite file.

Appending a message is one insert, `truncate_to` one delete, a configuration change one update, so the cost of
a write does not grow with the dialog. Listing reads the `dialogs` table only (it keeps a message count), and a
dialog's messages are read when it is opened. The store writes what it is told; `DialogTracker` turns a
dialog's events into these calls.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast

from ..dialog import Dialog
from ..lookup import DialogHost, DialogSummary, SearchHit
from ..message import Message, Role
from ..paths import DB_FILE_NAME, LOCK_FILE_NAME, Paths
from ..sanitize import clean_line
from . import blobs, rows
from .carry_over import ChangeLog
from .database import (
    CHECK_AT_OPEN_BYTES,
    open_database,
    open_read_only,
)
from .errors import StoreError, StoreRepairing
from .lock import DataDirLock
from .repairing import Repairs
from .salvage import SalvageProgress, is_damage
from .search import MARK_END, MARK_START, fts_match, like_pattern, make_snippet, query_terms, split_marks
from .tracker import DialogTracker

if TYPE_CHECKING:
    from ..compare.picks import Pick

log = logging.getLogger(__name__)

_INSERT_MESSAGE = (
    "INSERT INTO messages (dialog_id, position, "
    + ", ".join(rows.MESSAGE_COLUMNS)
    + ", created_at) VALUES (?, ?, "
    + ", ".join("?" * len(rows.MESSAGE_COLUMNS))
    + ", ?)"
)
_UPSERT_DIALOG = (
    "INSERT INTO dialogs (id, "
    + ", ".join(rows.DIALOG_CONFIG_COLUMNS)
    + ", created_at, updated_at) VALUES (?, "
    + ", ".join("?" * len(rows.DIALOG_CONFIG_COLUMNS))
    + ", ?, ?) ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in rows.DIALOG_CONFIG_COLUMNS)
    + ", created_at = excluded.created_at, updated_at = excluded.updated_at"
)


P = ParamSpec("P")
R = TypeVar("R")


def survives_damage(
    *, saved_by_recovery: bool = False
) -> Callable[[Callable[Concatenate[Store, P], R]], Callable[Concatenate[Store, P], R]]:
    """Make a store method recover from a damaged file found while it runs, then try once more.

    `saved_by_recovery`: a write about a tracked dialog (the first argument, or its id) needs no second try,
    because recovering writes every tracked dialog again whole from memory.
    """

    def wrap(method: Callable[Concatenate[Store, P], R]) -> Callable[Concatenate[Store, P], R]:
        @functools.wraps(method)
        def run(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
            seen = store.repairs
            first = args[0] if args else None
            dialog_id = first.id if isinstance(first, Dialog) else first
            try:
                return method(store, *args, **kwargs)
            except sqlite3.DatabaseError as error:
                if store._depth or not is_damage(error):
                    raise
                if store.repair_elsewhere is not None and store._repair_started_elsewhere(error, seen):
                    tracker = store._trackers.get(dialog_id) if isinstance(dialog_id, str) else None
                    if saved_by_recovery and tracker is not None:
                        store._remember_unsaved(tracker.dialog)
                        return cast(R, None)  # written from memory once the repair is done
                    raise StoreRepairing(store.path) from None
                store.recover_from_damage(error, seen=seen)
            if saved_by_recovery and dialog_id in store._trackers:
                return cast(R, None)  # only methods that return nothing say saved_by_recovery
            return method(store, *args, **kwargs)

        return run

    return wrap


def recovered_notice(titles: list[str]) -> str:
    """What to tell the user about replies recovered after a crash, naming the dialogs (up to three)."""
    named = ", ".join(f"“{clean_line(title, 60)}”" for title in titles[:3])
    if len(titles) > 3:
        named += f" and {len(titles) - 3} more"
    what = f"A reply in {named} was" if len(titles) == 1 else f"{len(titles)} replies in {named} were"
    return (
        f"{what} cut off when Visindigo last stopped. The text received until then is kept, marked as "
        "interrupted; regenerate for a complete answer."
    )


class Store(Repairs):
    """One open store; holds the data directory's lock until `close()`.

    Open it with `Store.open(paths)`. `notices` lists what the user should be told about opening (a file
    moved aside, an interrupted reply recovered). Methods raise `sqlite3.Error` on a failing disk; the
    tracker reports those through `on_error` and rewrites the dialog once writing works again.
    """

    def __init__(self, conn: sqlite3.Connection, *, path: Path, lock: DataDirLock | None = None) -> None:
        self._conn = conn
        self.path = path
        self._lock = lock
        #: Opened with `open_read_only`: a damaged file is reported, never repaired from here.
        self.read_only = False
        self._mutex = threading.RLock()
        #: Held for a whole repair (taken before `_mutex`, never after): one at a time, and `close` waits for it.
        self._repairing = threading.RLock()
        #: How many repairs replaced the file (see `recover_from_damage`).
        self.repairs = 0
        self._depth = 0
        self._trackers: dict[str, DialogTracker] = {}
        self.notices: list[str] = []
        #: Opened with `open_read_only`: nothing is tracked or written (see `Center.read_only`).
        self.read_only = False
        #: Called with a message the user should see when a write fails (the dialog stays intact in memory).
        self.on_error: Callable[[str], None] | None = None
        #: Hears the progress of a salvage (stage, done, total), possibly from a worker thread (`verify`).
        self.on_salvage: SalvageProgress | None = None
        #: Asked, with the error and `repairs` when it was met, to repair a damaged file in the background instead
        #: of in the thread that met it (the app's event loop: a salvage takes tens of seconds); True when it
        #: will. The call that met the damage then raises `StoreRepairing` (or, for a write of an open dialog,
        #: leaves it to the rewrite from memory).
        self.repair_elsewhere: Callable[[sqlite3.DatabaseError, int], bool] | None = None
        #: What was written while a repair copies (see `carry_over`); None when no repair is under way.
        self._changes: ChangeLog | None = None

    @classmethod
    def open(cls, paths: Paths | Path | str, *, on_salvage: SalvageProgress | None = None) -> Store:
        """Open the store of `paths` (or of a data directory), creating it when needed.

        Raises `StoreLocked` when another instance uses the directory and `StoreError` when the store cannot
        be used at all; a corrupt or foreign file is moved aside and reported in `notices` instead.
        `on_salvage` hears the progress of copying a damaged store found at open (`salvage.SalvageProgress`).
        """
        data_dir = paths.data_dir if isinstance(paths, Paths) else Path(paths)
        db_file = data_dir / DB_FILE_NAME
        lock_file = data_dir / LOCK_FILE_NAME
        try:
            data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"The data directory {data_dir} cannot be created: {exc.strerror or exc}") from exc
        lock = DataDirLock(lock_file)
        lock.acquire()
        try:
            conn, notices = open_database(db_file, progress=on_salvage)
        except BaseException:
            lock.release()
            raise
        store = cls(conn, path=db_file, lock=lock)
        store.on_salvage = on_salvage
        store.notices.extend(notices)
        recovered = store.recover_drafts()
        if recovered:
            store.notices.append(recovered_notice(recovered))
        return store

    @classmethod
    def open_read_only(cls, paths: Paths | Path | str) -> Store:
        """The store of `paths` for reading only, without taking the lock: works while the app has it open.

        For looking and exporting from outside the app. Nothing is created or changed (replies cut off by a
        crash stay checkpoints until the app opens the store); a write raises `sqlite3.OperationalError`.
        Raises `StoreError` when there is no usable store.
        """
        data_dir = paths.data_dir if isinstance(paths, Paths) else Path(paths)
        db_file = data_dir / DB_FILE_NAME
        store = cls(open_read_only(db_file), path=db_file)
        store.read_only = True
        return store

    def close(self) -> None:
        """Write pending stream checkpoints, stop tracking, close the file and release the lock (after a repair
        under way has finished)."""
        with self._repairing, self._mutex:
            for tracker in list(self._trackers.values()):
                tracker.detach(flush=True)
            self._trackers.clear()
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            if self._lock is not None:
                self._lock.release()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; nested uses join the outer one."""
        with self._mutex:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._depth = 0
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self._conn.execute("COMMIT")

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Make every write inside one transaction: many dialogs imported at once cost one commit."""
        with self._transaction():
            yield

    @survives_damage()
    def _query(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._mutex:
            return list(self._conn.execute(sql, parameters))

    @property
    def checked_at_open(self) -> bool:
        """Whether opening ran the integrity check (small stores); otherwise call `verify` when there is time."""
        try:
            return self.path.stat().st_size <= CHECK_AT_OPEN_BYTES
        except OSError:
            return False

    def report_error(self, message: str) -> None:
        log.error("%s", message)
        if self.on_error is not None:
            try:
                self.on_error(message)
            except Exception:
                log.exception("the store's error callback failed")

    # --- tracking dialogs ---------------------------------------------------------------------------------

    def track(self, dialog: Dialog, *, save: bool = True) -> DialogTracker | None:
        """Keep the dialog's rows in step with it from now on; `save` writes it whole first.

        A read-only store tracks nothing: the dialog's changes stay in memory (None is returned).
        """
        if self.read_only:
            return None
        existing = self._trackers.get(dialog.id)
        if existing is not None:
            if existing.dialog is dialog:
                return existing
            existing.detach(flush=False)
        if save and self._depth:  # inside a batch (an import): a failure must reach it, to roll all of it back
            self.save_dialog(dialog)
        tracker = DialogTracker(self, dialog)
        self._trackers[dialog.id] = tracker
        if save and not self._depth:
            # A full disk is reported (on_error) and the dialog written whole with its next change, as for any
            # failing write; it used to escape from creating a dialog.
            tracker.dialog_rewritten()
        return tracker

    def untrack(self, dialog_id: str) -> None:
        tracker = self._trackers.pop(dialog_id, None)
        if tracker is not None:
            tracker.detach(flush=False)

    def load_dialog(self, dialog_id: str, center: DialogHost | None = None) -> Dialog | None:
        """The stored dialog, tracked from now on; None when there is none of that id."""
        document = self.load_document(dialog_id)
        if document is None:
            return None
        dialog = Dialog(center)
        dialog.from_json(document)
        self.track(dialog, save=False)
        return dialog

    # --- dialogs ------------------------------------------------------------------------------------------

    @survives_damage(saved_by_recovery=True)
    def save_dialog(self, dialog: Dialog) -> None:
        """Write the dialog whole: its row and every message (replacing what was stored)."""
        messages = dialog.messages
        now = time.time()
        with self._transaction() as conn:
            self._touch(dialog.id)
            conn.execute(_UPSERT_DIALOG, (dialog.id, *rows.dialog_config_values(dialog), dialog.created_at, now))
            conn.execute("DELETE FROM messages WHERE dialog_id = ?", (dialog.id,))
            blobs.keep(conn, (a for m in messages for a in m.attachments))
            conn.executemany(
                _INSERT_MESSAGE,
                ((dialog.id, i, *rows.message_values(m), now) for i, m in enumerate(messages)),
            )
            blobs.prune(conn)
            conn.execute("UPDATE dialogs SET message_count = ? WHERE id = ?", (len(messages), dialog.id))

    @survives_damage(saved_by_recovery=True)
    def save_dialog_config(self, dialog: Dialog) -> None:
        """Write the dialog's row (title, provider, model, skills, ...), not its messages."""
        with self._transaction() as conn:
            self._touch(dialog.id)
            conn.execute(
                _UPSERT_DIALOG, (dialog.id, *rows.dialog_config_values(dialog), dialog.created_at, time.time())
            )

    def has_dialog(self, dialog_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM dialogs WHERE id = ?", (dialog_id,)))

    def parent_of(self, dialog_id: str) -> str | None:
        found = self._query("SELECT branch_from_id FROM dialogs WHERE id = ?", (dialog_id,))
        return str(found[0][0]) if found else None

    def children_of(self, dialog_id: str) -> list[str]:
        return [
            str(r[0])
            for r in self._query(
                "SELECT id FROM dialogs WHERE branch_from_id = ? ORDER BY created_at, id", (dialog_id,)
            )
        ]

    def dialog_ids(self) -> list[str]:
        return [str(r[0]) for r in self._query("SELECT id FROM dialogs ORDER BY created_at, id")]

    @survives_damage()
    def load_document(self, dialog_id: str) -> dict[str, Any] | None:
        """The dialog as a `Dialog.to_json()` document, or None."""
        with self._mutex:
            found = self._conn.execute(
                "SELECT id, " + ", ".join(rows.DIALOG_CONFIG_COLUMNS) + ", created_at FROM dialogs WHERE id = ?",
                (dialog_id,),
            ).fetchone()
            if found is None:
                return None
            messages = [
                rows.message_document(r)
                for r in self._conn.execute(
                    "SELECT " + ", ".join(rows.MESSAGE_COLUMNS) + " FROM messages WHERE dialog_id = ? "
                    "ORDER BY position",
                    (dialog_id,),
                )
            ]
            blobs.fill(self._conn, messages)
        return rows.dialog_document(found, messages)

    @survives_damage()
    def set_title(self, dialog_id: str, title: str) -> bool:
        """Rename a dialog without loading it; False when there is none of that id."""
        with self._transaction() as conn:
            self._touch(dialog_id)
            cursor = conn.execute(
                "UPDATE dialogs SET title = ?, updated_at = ? WHERE id = ?", (title, time.time(), dialog_id)
            )
            return cursor.rowcount > 0

    @survives_damage()
    def delete_dialog(self, dialog_id: str) -> bool:
        """Delete a dialog, its messages and draft; its branches now branch from its parent."""
        self.untrack(dialog_id)
        with self._transaction() as conn:
            found = conn.execute("SELECT branch_from_id FROM dialogs WHERE id = ?", (dialog_id,)).fetchone()
            if found is None:
                return False
            if self._changes is not None:  # its branches change too
                self._changes.deleted(dialog_id)
                self._touch(*(str(r[0]) for r in conn.execute(
                    "SELECT id FROM dialogs WHERE branch_from_id = ?", (dialog_id,)
                )))  # fmt: skip
            conn.execute(
                "UPDATE dialogs SET branch_from_id = ?, updated_at = ? WHERE branch_from_id = ?",
                (found[0], time.time(), dialog_id),
            )
            conn.execute("DELETE FROM messages WHERE dialog_id = ?", (dialog_id,))
            conn.execute("DELETE FROM drafts WHERE dialog_id = ?", (dialog_id,))
            conn.execute("DELETE FROM dialogs WHERE id = ?", (dialog_id,))
            blobs.prune(conn)
        return True

    def answer_rows(self) -> list[tuple[str, float, str]]:
        """(dialog id, saved at, meta JSON) of every assistant message that carries usage, for the usage report.

        Branches hold copies of their parent's answers: the report counts each answer once by its id."""
        return [
            (str(dialog_id), float(created), str(meta))
            for dialog_id, created, meta in self._query(
                "SELECT dialog_id, created_at, meta FROM messages WHERE role = 'assistant' AND meta LIKE '%\"usage\"%'"
            )
        ]

    @survives_damage()
    def labelled_rows(self) -> list[tuple[str, str, int, str]]:
        """(dialog id, dialog title, position, meta JSON) of every message whose meta may hold a label (the app's
        `meta["label"]`), newest first. Few messages carry one, so a scan of the meta column is enough."""
        return [
            (str(dialog_id), str(title), int(position), str(meta))
            for dialog_id, title, position, meta in self._query(
                "SELECT m.dialog_id, d.title, m.position, m.meta FROM messages m JOIN dialogs d ON d.id = m.dialog_id "
                "WHERE m.meta LIKE '%\"label\"%' ORDER BY m.id DESC"
            )
        ]

    def summaries(self) -> list[DialogSummary]:
        """Every dialog's metadata, oldest first, without reading a single message."""
        return [
            DialogSummary(*r)
            for r in self._query(
                "SELECT id, branch_from_id, title, provider_id, model_id, created_at, updated_at, message_count "
                "FROM dialogs ORDER BY created_at, id"
            )
        ]

    def summary(self, dialog_id: str) -> DialogSummary | None:
        found = self._query(
            "SELECT id, branch_from_id, title, provider_id, model_id, created_at, updated_at, message_count "
            "FROM dialogs WHERE id = ?",
            (dialog_id,),
        )
        return DialogSummary(*found[0]) if found else None

    # --- messages -----------------------------------------------------------------------------------------

    @survives_damage(saved_by_recovery=True)
    def append_message(self, dialog_id: str, position: int, message: Message, *, drop_draft: bool = False) -> None:
        """Insert the message at `position` (one row), optionally ending the stream's draft in the same step."""
        now = time.time()
        with self._transaction() as conn:
            self._touch(dialog_id)
            blobs.keep(conn, message.attachments)
            conn.execute(_INSERT_MESSAGE, (dialog_id, position, *rows.message_values(message), now))
            conn.execute(
                "UPDATE dialogs SET message_count = ?, updated_at = ? WHERE id = ?", (position + 1, now, dialog_id)
            )
            if drop_draft:
                conn.execute("DELETE FROM drafts WHERE dialog_id = ?", (dialog_id,))

    @survives_damage(saved_by_recovery=True)
    def update_message(self, dialog_id: str, position: int, message: Message) -> None:
        assignments = ", ".join(f"{c} = ?" for c in rows.MESSAGE_COLUMNS)
        with self._transaction() as conn:
            self._touch(dialog_id)
            blobs.keep(conn, message.attachments)
            cursor = conn.execute(
                f"UPDATE messages SET {assignments} WHERE dialog_id = ? AND position = ?",
                (*rows.message_values(message), dialog_id, position),
            )
            if cursor.rowcount != 1:
                raise StoreError(f"message {position} of dialog {dialog_id} is not in the store")
            conn.execute("UPDATE dialogs SET updated_at = ? WHERE id = ?", (time.time(), dialog_id))

    @survives_damage(saved_by_recovery=True)
    def truncate(self, dialog_id: str, count: int, *, drop_draft: bool = False) -> None:
        """Keep the first `count` messages of the dialog."""
        with self._transaction() as conn:
            self._touch(dialog_id)
            conn.execute("DELETE FROM messages WHERE dialog_id = ? AND position >= ?", (dialog_id, count))
            blobs.prune(conn)
            conn.execute(
                "UPDATE dialogs SET message_count = min(message_count, ?), updated_at = ? WHERE id = ?",
                (count, time.time(), dialog_id),
            )
            if drop_draft:
                conn.execute("DELETE FROM drafts WHERE dialog_id = ?", (dialog_id,))

    def message_count(self, dialog_id: str) -> int:
        found = self._query("SELECT count(*) FROM messages WHERE dialog_id = ?", (dialog_id,))
        return int(found[0][0])

    # --- stream checkpoints -------------------------------------------------------------------------------

    @survives_damage(saved_by_recovery=True)
    def write_draft(self, dialog_id: str, position: int, content: str, reasoning: str, started_at: float) -> None:
        """Save the text of a reply that is still streaming; it becomes a message if the app dies."""
        with self._transaction() as conn:
            self._touch(dialog_id)
            conn.execute(
                "INSERT INTO drafts (dialog_id, position, content, reasoning, started_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (dialog_id) DO UPDATE SET position = excluded.position, "
                "content = excluded.content, reasoning = excluded.reasoning, started_at = excluded.started_at, "
                "updated_at = excluded.updated_at",
                (dialog_id, position, content, reasoning, started_at, time.time()),
            )

    @survives_damage(saved_by_recovery=True)
    def delete_draft(self, dialog_id: str) -> None:
        with self._transaction() as conn:
            self._touch(dialog_id)
            conn.execute("DELETE FROM drafts WHERE dialog_id = ?", (dialog_id,))

    def draft(self, dialog_id: str) -> tuple[int, str, str] | None:
        """(position, content, reasoning) of the dialog's stream checkpoint, if any."""
        found = self._query("SELECT position, content, reasoning FROM drafts WHERE dialog_id = ?", (dialog_id,))
        return (int(found[0][0]), str(found[0][1]), str(found[0][2])) if found else None

    @survives_damage()
    def recover_drafts(self) -> list[str]:
        """Turn the checkpoints left by a crash into assistant messages marked "interrupted"; returns the titles
        of the dialogs concerned.

        A checkpoint is kept only if nothing was stored in the dialog after its stream began; one followed by
        other messages belongs to a round that failed and was carried on from, and appending it now would put
        an old reply after newer ones.
        """
        recovered: list[str] = []
        with self._transaction() as conn:
            for dialog_id, title, position, content, reasoning, started_at in list(
                conn.execute(
                    "SELECT d.dialog_id, t.title, d.position, d.content, d.reasoning, d.started_at FROM drafts d "
                    "JOIN dialogs t ON t.id = d.dialog_id ORDER BY d.started_at"
                )
            ):
                self._touch(dialog_id)
                count = conn.execute("SELECT count(*) FROM messages WHERE dialog_id = ?", (dialog_id,)).fetchone()
                if (content or reasoning) and int(count[0]) == position:
                    message = Message(Role.ASSISTANT, content, reasoning=reasoning)
                    message.meta["status"] = "interrupted"
                    conn.execute(_INSERT_MESSAGE, (dialog_id, position, *rows.message_values(message), started_at))
                    conn.execute(
                        "UPDATE dialogs SET message_count = ?, updated_at = ? WHERE id = ?",
                        (position + 1, time.time(), dialog_id),
                    )
                    recovered.append(str(title) or "Untitled dialog")
                conn.execute("DELETE FROM drafts WHERE dialog_id = ?", (dialog_id,))
        return recovered

    # --- what the user was typing -------------------------------------------------------------------------

    @survives_damage()
    def save_input_draft(self, dialog_id: str, text: str) -> None:
        """Keep the composer's unsent text of a dialog, so quitting does not lose it."""
        with self._transaction() as conn:
            self._touch(dialog_id)
            conn.execute("UPDATE dialogs SET input_draft = ? WHERE id = ?", (text, dialog_id))

    def input_draft(self, dialog_id: str) -> str:
        found = self._query("SELECT input_draft FROM dialogs WHERE id = ?", (dialog_id,))
        return str(found[0][0]) if found else ""

    # --- picks of comparisons -----------------------------------------------------------------------------

    @survives_damage()
    def record_pick(self, pick: Pick) -> int:
        """Write a comparison's pick (`engine.storage.picks`); returns its row id."""
        from .picks import insert_pick  # the compare package loads when a comparison needs it, not at start

        with self._transaction() as conn:
            pick_id = insert_pick(conn, pick)
            if self._changes is not None:
                self._changes.picks.add(pick_id)
            return pick_id

    @survives_damage()
    def picks(self) -> list[Pick]:
        """Every pick, oldest first; none in a store older than the picks table."""
        from .picks import read_picks

        with self._mutex:
            return read_picks(self._conn)

    # --- search -------------------------------------------------------------------------------------------

    @survives_damage()
    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Dialogs whose messages contain every word of `query`, one hit per dialog, most recent match first.

        Recency rather than relevance: with trigram tokens a relevance score says little, and walking the
        index newest-first lets a common word stop after `limit` dialogs instead of scoring every message.
        """
        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        match = fts_match(terms)
        hits: dict[str, SearchHit] = {}
        if match is not None:
            # Choose first, snippets after: a snippet for every match of a common word would cost more than the
            # search itself.
            chosen: dict[str, tuple[int, str, int]] = {}
            with self._mutex:
                ranked = self._conn.execute(
                    "SELECT m.dialog_id, d.title, m.position, m.id FROM messages_fts "
                    "JOIN messages m ON m.id = messages_fts.rowid JOIN dialogs d ON d.id = m.dialog_id "
                    "WHERE messages_fts MATCH ? ORDER BY messages_fts.rowid DESC",
                    (match,),
                )
                for dialog_id, title, position, rowid in ranked:
                    if dialog_id not in chosen:
                        chosen[dialog_id] = (int(rowid), title, int(position))
                        if len(chosen) >= limit:
                            break
                ranked.close()
                for dialog_id, (rowid, title, position) in chosen.items():
                    marked = self._conn.execute(
                        f"SELECT snippet(messages_fts, 0, '{MARK_START}', '{MARK_END}', '…', 48) FROM messages_fts "
                        "WHERE messages_fts MATCH ? AND rowid = ?",
                        (match, rowid),
                    ).fetchone()
                    text, spans = split_marks(marked[0] if marked else "")
                    hits[dialog_id] = SearchHit(dialog_id, title, position, text, spans)
            return list(hits.values())
        where = " AND ".join("m.content LIKE ? ESCAPE '\\'" for _ in terms)
        sql = (
            "SELECT m.dialog_id, d.title, m.position, m.content FROM messages m JOIN dialogs d ON d.id = m.dialog_id "
            f"WHERE {where} ORDER BY m.id DESC"
        )
        with self._mutex:
            for dialog_id, title, position, content in self._conn.execute(sql, tuple(map(like_pattern, terms))):
                if dialog_id not in hits:
                    text, spans = make_snippet(content, terms)
                    hits[dialog_id] = SearchHit(dialog_id, title, int(position), text, spans)
                    if len(hits) >= limit:
                        break
        return list(hits.values())
