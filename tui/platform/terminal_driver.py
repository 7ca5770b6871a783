"""Textual's Linux driver, made to notice that its terminal has gone away, and the app's way out then.

When a pty's other end closes (a terminal window or tmux pane gone, an SSH link dropped), reading the terminal
gives end-of-file (or EIO) at once, forever, and writing it fails with EIO. Textual's driver took the empty read
for piped input and read again: a thread spinning on a core for as long as the process lived. Its
output thread died on the first failed write, after which its queue filled and the app's own thread blocked
for good in the next write — a process that no longer even handled SIGTERM. Seen in use: app processes kept
running long after their tmux pane had gone.

`SturdyLinuxDriver` swallows failed writes (the output thread keeps emptying its queue, so nothing waits on a
terminal that is gone) and stops reading at end-of-file or on a read error; either tells the app, which leaves
as on SIGHUP (`LeavingOnSignals`). Leaving is given a deadline: should anything still hold the app up, the
stream checkpoints are written (as a crash would leave them, for the next start to recover) and the process
ends. `install(app)` makes it the app's driver where Textual would use its `LinuxDriver`; on a Textual the fork
was not checked on (`compat`) it is not installed, and a driver made anyway behaves as Textual's own.

Upstream report: docs/upstream/driver-eof-eio.md (Textualize/textual#6690 fixes the end-of-file half)
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import IO, Any

from textual.app import App
from textual.drivers.linux_driver import LinuxDriver

from visindigo.tui.platform import compat

log = logging.getLogger(__name__)

UPSTREAM = "docs/upstream/driver-eof-eio.md"

#: Seconds the app is given to leave after a signal or the loss of its terminal before the process is ended.
LEAVE_DEADLINE = 8.0
#: Of which the stream checkpoints may take this long to write (a store busy with a repair would take longer).
SAVE_DEADLINE = 3.0


class GuardedOutput:
    """The terminal's output file, whose writes never fail: once one does, the terminal is gone and the rest is
    dropped (the caller is told once). A terminal that someone else set non-blocking may also be full for a
    while: what did not fit is lost then, so the terminal no longer shows what the app last sent, and `dropped`
    is told (once until a write goes through again) so that the app's next frame rewrites every cell."""

    #: How long a write that found the terminal full waits for it to drain before the app is told.
    DRAIN_WAIT = 0.25

    def __init__(self, file: IO[str], lost: Callable[[], None], dropped: Callable[[], None] = lambda: None) -> None:
        self._file = file
        self._lost = lost
        self._dropped = dropped
        self._dropping = False
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                written = self._file.write(text)
            except BlockingIOError:  # full, not gone (some of `text` may be out, some in the buffer)
                self._drop()
            except (OSError, ValueError):
                self._lose()
            else:
                self._dropping = False
                return written
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except BlockingIOError:
                self._drop()
            except (OSError, ValueError):
                self._lose()

    def _drop(self) -> None:
        if self._dropping:
            return
        self._dropping = True
        with contextlib.suppress(OSError, ValueError):
            select.select([], [self._file.fileno()], [], self.DRAIN_WAIT)
        self._dropped()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return True

    def _lose(self) -> None:
        self.gone = True
        self._lost()


class SturdyLinuxDriver(LinuxDriver):
    """`LinuxDriver` that tells the app when its terminal is gone instead of spinning or blocking."""

    def __init__(self, app: App[Any], **options: Any) -> None:
        super().__init__(app, **options)
        self._told = threading.Event()
        #: False on a Textual the fork was not checked on: everything is Textual's own then.
        self.sturdy = compat.enabled("terminal_driver", self)
        if self.sturdy:
            self._file = GuardedOutput(self._file, self._terminal_lost, self._output_dropped)  # type: ignore[assignment,arg-type]

    def _output_dropped(self) -> None:
        """From the output thread: part of a frame was lost to a full terminal; the next frame repaints it all."""

        def repaint() -> None:
            from visindigo.tui.platform.graphics import resend
            from visindigo.tui.platform.output_stage import repaint_terminal

            repaint_terminal(self._app)  # a frame of every cell, now that the output stage forgot what was sent
            resend(self._app)  # an image upload may have been cut too

        with contextlib.suppress(RuntimeError):  # the loop is closed already: the app has left
            self._loop.call_soon_threadsafe(repaint)

    def _terminal_lost(self) -> None:
        """From any thread, once: the app leaves (on its own thread)."""
        if self._told.is_set():
            return
        self._told.set()
        if isinstance(self._app, LeavingOnSignals):
            with contextlib.suppress(RuntimeError):  # the loop is closed already: the app has left
                self._loop.call_soon_threadsafe(self._app.terminal_gone)

    def run_input_thread(self) -> None:
        """Textual's (8.2) input loop, ending at end-of-file or a read error instead of reading again forever."""
        if not self.sturdy:
            super().run_input_thread()
            return
        from textual._loop import loop_last
        from textual._parser import ParseError
        from textual._xterm_parser import XTermParser

        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> bool:
            """Feed what can be read to the parser; False when the terminal is gone."""
            for last, (_key, mask) in loop_last(selector_events):
                if mask & selectors.EVENT_READ:
                    try:
                        data = os.read(self.fileno, 1024 * 4)
                    except BlockingIOError:  # nothing after all (a non-blocking terminal)
                        continue
                    except OSError:  # EIO: the other end of the pty is closed
                        return False
                    if not data:
                        return False
                    for event in parser.feed(decode(data, final=final and last)):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
            return True

        try:
            while not self.exit_event.is_set():
                if not process(selector.select(0.1)):
                    self._terminal_lost()
                    return
            selector.unregister(self.fileno)
            process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass


def install(app: App[Any]) -> None:
    """The app's driver notices a terminal that has gone, where Textual would use its `LinuxDriver`."""
    if app.driver_class is LinuxDriver and compat.enabled("terminal_driver"):
        app.driver_class = SturdyLinuxDriver


class LeavingOnSignals(App[Any]):
    """For `VisindigoApp`: SIGTERM, SIGHUP and the loss of the terminal end the app as ctrl+q does, minus what
    needs a terminal, within `LEAVE_DEADLINE`.

    The handlers are plain signal handlers rather than the event loop's: those run only when the loop gets to
    them, and a loop held up (by a write to a terminal that does not read) never did.
    """

    _leaving_since: float | None = None
    #: The handlers there were before the app's, put back when it ends (a test process runs many apps).
    _previous_handlers: dict[int, Any] | None = None

    def leave_on_signals(self) -> None:
        """Install the handlers (from the app's thread, with its loop running)."""
        import asyncio

        loop = asyncio.get_running_loop()
        for number in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
            if number is None:
                continue

            def handler(signum: int, frame: object) -> None:
                self.start_leave_deadline(128 + signum)
                with contextlib.suppress(RuntimeError):  # the loop has stopped: the deadline ends the process
                    loop.call_soon_threadsafe(self._signalled, signum)

            try:
                previous = signal.signal(number, handler)
            except (ValueError, OSError):  # not the main thread
                continue
            if self._previous_handlers is None:
                self._previous_handlers = {}
            self._previous_handlers[int(number)] = previous

    def on_unmount(self) -> None:
        """The app has ended: the handlers there were before it are back."""
        handlers, self._previous_handlers = self._previous_handlers, None
        for number, previous in (handlers or {}).items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(number, previous if previous is not None else signal.SIG_DFL)

    def terminal_gone(self) -> None:
        """The terminal was closed (see `SturdyLinuxDriver`): leave as on SIGHUP."""
        log.warning("the terminal is gone: leaving")
        self.start_leave_deadline(128 + int(getattr(signal, "SIGHUP", 1)))
        self._signalled(int(getattr(signal, "SIGHUP", 1)))

    def remove_temporary_files(self) -> None:
        """What the app made and must not leave behind (nothing here): every way out calls this, first."""

    def last_save(self) -> Callable[[], None] | None:
        """What saves the user's work when the app did not leave in time (nothing here), run in a thread for at
        most `SAVE_DEADLINE` before the process ends."""
        return None

    def _signalled(self, number: int) -> None:
        self.remove_temporary_files()  # first: after SIGHUP the terminal may be gone before the app has left
        for worker in list(self.workers):
            worker.cancel()
        self.exit(return_code=128 + number)

    def start_leave_deadline(self, code: int) -> None:
        """Once: if the process is still here after `LEAVE_DEADLINE`, write the stream checkpoints and end it."""
        if self._leaving_since is not None:
            return
        import time

        self._leaving_since = time.monotonic()
        threading.Thread(target=self._end_late, args=(code,), name="leave-deadline", daemon=True).start()

    def _end_late(self, code: int) -> None:
        threading.Event().wait(LEAVE_DEADLINE)
        log.warning("the app did not leave within %.0f s: ending the process", LEAVE_DEADLINE)
        save = self.last_save()
        if save is not None:
            saving = threading.Thread(target=save, name="leave-save", daemon=True)
            saving.start()
            saving.join(SAVE_DEADLINE)
        try:
            self.remove_temporary_files()
        except Exception:
            log.exception("removing temporary files failed")
        for handler in logging.getLogger("visindigo").handlers:
            handler.flush()
        os._exit(code)
