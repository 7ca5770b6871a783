"""Repairing a damaged store while the app goes on: the part of `Store` that copies, records and swaps.

`Store.recover_from_damage` runs the long copy of a salvage (`database.copy_damaged`) without the store's
mutex, so reads and writes go on against the damaged file meanwhile; what they write is recorded
(`carry_over.ChangeLog`) and carried into the copy at the swap, under the mutex. `verify` is the background
integrity check that starts it for a big store; `repair_elsewhere` lets the app move a repair met by one of its
own queries off its event loop.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .carry_over import ChangeLog, carry_over
from .database import configure, connect, copy_damaged, discard_copy, install_copy
from .errors import StoreError
from .lock import DataDirLock
from .salvage import SalvageProgress, integrity_problem

if TYPE_CHECKING:
    from ..dialog import Dialog
    from .tracker import DialogTracker

log = logging.getLogger(__name__)


class Repairs:
    """Mixed into `Store` (which sets every attribute named here in its `__init__`)."""

    path: Path
    read_only: bool
    repairs: int
    notices: list[str]
    on_salvage: SalvageProgress | None
    repair_elsewhere: Callable[[sqlite3.DatabaseError, int], bool] | None
    _conn: sqlite3.Connection
    _lock: DataDirLock | None
    _mutex: threading.RLock
    _repairing: threading.RLock
    _trackers: dict[str, DialogTracker]
    _changes: ChangeLog | None

    def report_error(self, message: str) -> None:
        raise NotImplementedError

    def save_dialog(self, dialog: Dialog) -> None:
        raise NotImplementedError

    def verify(self) -> str | None:
        """Run the integrity check now, on a connection of its own (writers go on meanwhile); on damage,
        recover as `recover_from_damage` does. Returns what was wrong, or None. Safe to call from a thread."""
        if self.read_only or self._lock is None:
            return None
        seen = self.repairs
        try:
            conn = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        except sqlite3.Error:
            return None
        try:
            problem = integrity_problem(conn)
        finally:
            conn.close()
        if problem is not None:
            with contextlib.suppress(sqlite3.DatabaseError):  # a repair that could not be made was reported
                self.recover_from_damage(sqlite3.DatabaseError(problem), seen=seen)
        return problem

    def recover_from_damage(self, error: sqlite3.DatabaseError, *, seen: int | None = None) -> None:
        """The file turned out damaged: move it aside, copy what can be read into a new one, then write every
        tracked dialog again whole (what is in memory is the newest state). Tells the user through `on_error`.

        The copy is made without the store's mutex: the app goes on reading (and writing) the damaged file
        meanwhile, and only the swap waits for it — a salvage of 10,000 dialogs takes tens of seconds. What is
        written meanwhile is recorded (`carry_over.ChangeLog`) and carried into the copy at the swap, under the
        mutex, so a rename, a delete or a pick made during the copy is not lost. One repair runs at a time;
        `seen` (`repairs` when the caller met the damage) makes a caller that waited for another thread's repair
        return at once, to try again on the new file. A read-only store is not repaired (another process may
        own the file): that is a `StoreError`.
        """
        if self.read_only or self._lock is None:
            raise StoreError(
                f"The dialog store {self.path} is damaged ({error}); start Visindigo on it to repair it."
            ) from None
        with self._repairing:
            if seen is not None and seen != self.repairs:
                self._settle_changes()  # recorded for a repair another caller already made
                return
            with self._mutex:
                if self._changes is None:
                    self._changes = ChangeLog()
            try:
                building, result = copy_damaged(self.path, self.on_salvage)
            except StoreError as failure:  # no room for the copy: go on with the damaged file, and say why
                self._settle_changes()
                self.report_error(str(failure))
                raise error from None
            with self._mutex:
                changes, self._changes = self._changes, None
                try:
                    self._carry_into(building, changes, result)
                except (sqlite3.Error, OSError) as failure:
                    discard_copy(building)
                    self.report_error(
                        f"The dialog store {self.path} is damaged, and the changes made while it was copied could "
                        f"not be added to the copy ({failure}). It was left as it is."
                    )
                    raise error from None
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                try:
                    self._conn, notice = install_copy(self.path, building, str(error), result)
                except StoreError as failure:
                    self._conn = connect(self.path)
                    configure(self._conn)
                    self.report_error(str(failure))
                    raise error from None
                self.repairs += 1
                trackers = list(self._trackers.values())
                self._save_unsaved(changes)
            # Outside the store's mutex: a tracker takes its own lock first, then the store's (as the app does).
            for tracker in trackers:
                tracker.dialog_rewritten()
        self.notices.append(notice)
        self.report_error(notice + " The dialogs open now were saved again from memory.")

    def repair_after(self, error: Exception, seen: int) -> None:
        """The repair `repair_elsewhere` agreed to make, in the caller's (worker) thread; a repair that cannot be
        made was reported through `on_error`."""
        problem = error if isinstance(error, sqlite3.DatabaseError) else sqlite3.DatabaseError(str(error))
        with contextlib.suppress(sqlite3.DatabaseError):
            self.recover_from_damage(problem, seen=seen)

    def _touch(self, *dialog_ids: str) -> None:
        """Record a write to these dialogs while a repair copies (called under the mutex, in the write)."""
        if self._changes is not None:
            self._changes.touch(*dialog_ids)

    def _carry_into(self, building: Path, changes: ChangeLog, result: Any) -> None:
        """Carry what was written during the copy from the live file into the copy (see `carry_over`)."""
        if not changes.dialogs and not changes.picks:
            return
        copy = sqlite3.connect(building, isolation_level=None)
        try:
            unreadable = carry_over(self._conn, copy, changes, set(self._trackers))
        finally:
            copy.close()
        log.info("carried %d dialogs and %d picks changed during the repair", len(changes.dialogs), len(changes.picks))
        if unreadable:
            result.notes.append(
                f"{len(unreadable)} dialog(s) changed during the repair could not be read again and are kept as "
                "they were copied"
            )

    def _save_unsaved(self, changes: ChangeLog | None) -> None:
        """Write from memory the dialogs whose write failed on the damaged file and that are no longer open."""
        for dialog in list(changes.unsaved.values()) if changes is not None else ():
            if dialog.id not in self._trackers:
                try:
                    self.save_dialog(dialog)
                except (sqlite3.Error, StoreError) as failure:
                    self.report_error(f"Could not save dialog {dialog.title or dialog.id!r}: {failure}")

    def _settle_changes(self) -> None:
        """Stop recording without a swap: what only memory holds is written to the file there is."""
        with self._mutex:
            changes, self._changes = self._changes, None
            self._save_unsaved(changes)

    def _repair_started_elsewhere(self, error: sqlite3.DatabaseError, seen: int) -> bool:
        """Ask `repair_elsewhere` to repair in the background; while it does, writes are recorded from now on."""
        assert self.repair_elsewhere is not None
        with self._mutex:
            if self._changes is None:
                self._changes = ChangeLog()
        if self.repair_elsewhere(error, seen):
            return True
        if not self._repairing.acquire(blocking=False):
            return False  # a repair is under way in another thread: it owns the record
        try:
            with self._mutex:
                self._changes = None
        finally:
            self._repairing.release()
        return False

    def _remember_unsaved(self, dialog: Dialog) -> None:
        """A write of an open dialog failed on the damaged file: the repair writes it from memory."""
        with self._mutex:
            if self._changes is not None:
                self._changes.unsaved[dialog.id] = dialog
        tracker = self._trackers.get(dialog.id)
        if tracker is not None:
            tracker.mark_dirty()  # and, should the repair not come, its next change writes it whole
