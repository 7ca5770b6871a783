"""When the app itself fails: the traceback goes to the log file, the screen gets one sentence saying where.

Textual's default prints a traceback with the local variables of every frame when an unhandled exception
ends the app — a wall of text for the user, and the locals may hold an API key. `CrashLogging` (a base of
`VisindigoApp`) writes the traceback, without locals and with every known key masked, to
`<data>/logs/visindigo.log` (the same file `--debug` writes), and leaves the user a line naming that file.
It overrides two private methods of `textual.app.App` (`_handle_exception`, `_fatal_error`): Textual has no
public hook for this, and the signatures have been stable since Textual 0.x.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from visindigo.engine import applog
from visindigo.engine.paths import resolve_paths

if TYPE_CHECKING:
    from visindigo.engine.paths import Paths

log = logging.getLogger("visindigo.crash")


def log_line(paths: Paths | None) -> str:
    """What the help screen (f1) says about the log; nothing for an app without files (--demo) and no log."""
    current = applog.current_file()
    if current is not None:
        return f"Debug log: {current}"
    if paths is None:
        return ""
    folder = paths.logs_dir
    return f"No debug log (start with --debug or VISINDIGO_LOG=debug to write {folder / applog.LOG_FILE_NAME})"


def record_crash(error: BaseException, paths: Paths | None) -> Path | None:
    """Write `error` with its traceback to the log (starting the log at warning level if it is off)."""
    if applog.current_file() is None:
        try:
            applog.configure(1, (paths or resolve_paths()).logs_dir)
        except OSError:
            return None
    log.error("the app stopped on an unexpected error", exc_info=(type(error), error, error.__traceback__))
    for handler in logging.getLogger("visindigo").handlers:
        handler.flush()
    return applog.current_file()


def crash_message(error: BaseException, where: Path | None) -> str:
    from visindigo.tui.common.sanitize import clean

    first = applog.mask(clean(str(error))).splitlines()[0][:200] if str(error) else ""
    what = f"{type(error).__name__}: {first}" if first else type(error).__name__
    if where is None:
        return f"Visindigo stopped on an unexpected error ({what}); the log folder could not be written."
    return (
        f"Visindigo stopped on an unexpected error ({what}).\n"
        f"The details are in {where} — please attach that file (and `visindigo doctor`) to a bug report."
    )


class CrashLogging(App[Any]):
    """Unhandled errors go to the log file; the user reads where."""

    _crash_where: Path | None = None
    _crash_error: BaseException | None = None
    #: The sentence printed when the app ended on an unhandled error ("" while it has not).
    crash_report: str = ""

    def _handle_exception(self, error: Exception) -> None:
        center = getattr(self, "center", None)
        self._crash_error = error
        self._crash_where = record_crash(error, getattr(center, "paths", None))
        super()._handle_exception(error)

    def _fatal_error(self) -> None:
        self.bell()
        if self._crash_error is not None:
            self.crash_report = crash_message(self._crash_error, self._crash_where)
            self._exit_renderables.append(self.crash_report)
        self._close_messages_no_wait()
