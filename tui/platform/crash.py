"""When the app itself fails: the traceback goes to the log file, the screen gets one sentence saying where.

Textual's default prints a traceback with the local variables of every frame when an unhandled exception
ends the app — a wall of text for the user, and the locals may hold an API key. `install(app)` has the app
write the traceback, without locals and with every known key masked, to `<data>/logs/visindigo.log` (the same
file `--debug` writes), and leave the user a line naming that file. It replaces two private methods of
`textual.app.App` on that app (`_handle_exception`, `_fatal_error`): Textual has no public hook for this; on a
Textual they were not checked on (`compat`) the app keeps Textual's own.

Upstream report: docs/upstream/crash-hook.md
"""

from __future__ import annotations

import logging
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

from visindigo.engine import applog
from visindigo.engine.paths import resolve_paths
from visindigo.tui.platform import compat

if TYPE_CHECKING:
    from visindigo.engine.paths import Paths

log = logging.getLogger("visindigo.crash")

UPSTREAM = "docs/upstream/crash-hook.md"


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


def install(app: App[Any]) -> None:
    """Unhandled errors of `app` go to the log file; the user reads where."""
    if not compat.enabled("crash", app) or app in _reports:
        return
    _reports[app] = ""
    failed: Any = app
    textual_handle_exception = failed._handle_exception
    caught: list[tuple[BaseException, Path | None]] = []

    def handle_exception(error: Exception) -> None:
        center = getattr(app, "center", None)
        caught.append((error, record_crash(error, getattr(center, "paths", None))))
        textual_handle_exception(error)

    def fatal_error() -> None:
        app.bell()
        if caught:
            _reports[app] = crash_message(*caught[-1])
            failed._exit_renderables.append(_reports[app])
        failed._close_messages_no_wait()

    failed._handle_exception = handle_exception
    failed._fatal_error = fatal_error


def crash_report(app: App[Any]) -> str:
    """The sentence printed when `app` ended on an unhandled error ("" while it has not)."""
    return _reports.get(app, "")


_reports: weakref.WeakKeyDictionary[App[Any], str] = weakref.WeakKeyDictionary()
