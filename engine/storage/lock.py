"""An advisory lock on the data directory: one running Visindigo writes to a store at a time.

SQLite alone would keep the file intact with two writers, but each instance holds its dialogs in memory and
appends messages by position, so two of them on one dialog would interleave their histories. The second
instance therefore refuses to open, naming the process that holds the lock. The operating system drops the
lock when its holder exits, even by SIGKILL, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import IO

from .errors import StoreError, StoreLocked


class DataDirLock:
    """Holds an exclusive lock on `path` until `release()`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._file is not None

    def acquire(self) -> None:
        """Take the lock or raise `StoreLocked` at once (never waits: a hung UI helps nobody)."""
        if self._file is not None:
            return
        # Owner-only, like the rest of the data directory; kept open while the lock is held.
        try:
            descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StoreError(f"The lock file {self.path} cannot be opened: {exc.strerror or exc}") from None
        handle = open(descriptor, "r+", encoding="utf-8")  # noqa: SIM115
        try:
            _lock(handle)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            who = f" (process {holder})" if holder.isdigit() else ""
            raise StoreLocked(
                f"Another Visindigo{who} is using the data directory {self.path.parent}. Close it first, or "
                "start this one with --data-dir pointing at another folder.",
                directory=str(self.path.parent),
                holder=holder if holder.isdigit() else "",
            ) from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
        except OSError as exc:  # a full disk: give the lock back, or it stays held until this process ends
            with contextlib.suppress(OSError):
                _unlock(handle)
            with contextlib.suppress(OSError):
                handle.close()
            raise StoreError(f"The lock file {self.path} cannot be written: {exc.strerror or exc}") from None
        self._file = handle

    def release(self) -> None:
        if self._file is None:
            return
        with contextlib.suppress(OSError):
            self._file.seek(0)
            self._file.truncate()
            self._file.flush()
        with contextlib.suppress(OSError):
            _unlock(self._file)
        self._file.close()
        self._file = None


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

    def _unlock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
