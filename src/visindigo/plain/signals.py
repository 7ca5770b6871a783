"""Signals that reach the plain mode however busy its main thread is: ctrl+c interrupts, SIGTERM and SIGHUP leave
as ctrl+d does (runs cancelled with their partial answers kept, the store closed) instead of Python's default of
dying on the spot.

Python runs a signal's handler in the main thread, and only when that thread next gets out of C code: a
blocking read (readline's wait for a key, `input()` from a pipe, a queue) gives way only when the signal
interrupts the very system call it waits in. A signal that lands a moment before that call (seen under load: the
prompt's write wakes the terminal, whose ctrl+c arrives before readline's `select` has begun), or on the engine's
thread, would wait for the next key press — a ctrl+c or a `kill` seemingly ignored. So every signal is also
written to a wakeup pipe (`signal.set_wakeup_fd`), and a small thread that reads it pokes the main thread every
50 ms until the handler has run:
- SIGTERM and SIGHUP are sent again (their handler runs once: a repeat cannot cut the clean-up that follows);
- ctrl+c is counted as its byte is read, and delivered by a poke (SIGUSR1) whose handler raises KeyboardInterrupt
  only while a counted ctrl+c is still unanswered — so a poke that crosses the handler's run never becomes a second
  ctrl+c. (SIGINT's own handler does nothing: the poke is the one way a ctrl+c is raised.)

Every thread the plain mode starts is also started with SIGINT blocked (`main_thread_signals`), so the kernel
hands the terminal's SIGINT to the main thread, inside the wait it interrupts, in the first place.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

#: The signals that end the session cleanly (those the platform has).
LEAVING = tuple(number for name in ("SIGTERM", "SIGHUP") if (number := getattr(signal, name, None)) is not None)

#: The poke that delivers a ctrl+c the main thread missed.
_POKE: int | None = getattr(signal, "SIGUSR1", None)

#: How often an unanswered signal is sent on to the main thread, seconds.
_PERIOD = 0.05


class _Interrupts:
    """ctrl+c's counted by the forwarder (`arrived`) and answered in the main thread (`answered`)."""

    def __init__(self) -> None:
        self.arrived = 0
        self.answered = 0

    def interrupt(self, number: int, frame: FrameType | None) -> None:
        """The handler of SIGINT and of the poke. SIGINT itself does nothing here (its wakeup byte is what counts):
        raising from it as well would leave a poke pending behind the exception, and a handler that then returns
        with that exception set is a SystemError. The poke raises one KeyboardInterrupt per counted ctrl+c."""
        if number != signal.SIGINT and self.answered < self.arrived:
            self.answered += 1
            raise KeyboardInterrupt


@contextlib.contextmanager
def leaving_on_signals() -> Iterator[None]:
    """Within: ctrl+c raises KeyboardInterrupt in the main thread even when it landed outside a wait; SIGTERM or
    SIGHUP raise SystemExit(128 + signal) there, once (a repeated signal does not interrupt the clean-up that
    follows)."""
    if threading.current_thread() is not threading.main_thread() or not LEAVING or _POKE is None:
        yield
        return
    handled = threading.Event()
    interrupts = _Interrupts()

    def leave(number: int, frame: FrameType | None) -> None:
        if handled.is_set():
            return
        handled.set()
        raise SystemExit(128 + number)

    saved = {number: signal.signal(number, leave) for number in LEAVING}
    saved |= {number: signal.signal(number, interrupts.interrupt) for number in (signal.SIGINT, _POKE)}
    reading, writing = os.pipe()
    os.set_blocking(writing, False)
    saved_fd = signal.set_wakeup_fd(writing, warn_on_full_buffer=False)
    forwarder = threading.Thread(
        target=_forward,
        args=(reading, threading.main_thread(), handled, interrupts, _POKE),
        name="visindigo-signals",
        daemon=True,
    )
    with main_thread_signals():
        forwarder.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(saved_fd)
        for number, handler in saved.items():
            signal.signal(number, handler)
        handled.set()  # nothing more to forward
        interrupts.arrived = interrupts.answered
        os.close(writing)  # the forwarder reads the end of the pipe and stops
        forwarder.join(timeout=5)
        os.close(reading)


@contextlib.contextmanager
def main_thread_signals() -> Iterator[None]:
    """Threads started within inherit a signal mask that blocks SIGINT, so ctrl+c goes to the main thread."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    saved = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, saved)


def _forward(
    reading: int, main: threading.Thread, handled: threading.Event, interrupts: _Interrupts, poke: int
) -> None:
    """Each signal written to the pipe is sent on to the main thread, every 50 ms, until it was handled."""
    while data := os.read(reading, 64):
        if main.ident is None:
            continue
        for number in data:
            if number == signal.SIGINT:
                interrupts.arrived += 1
                while interrupts.answered < interrupts.arrived and not handled.is_set():
                    signal.pthread_kill(main.ident, poke)
                    handled.wait(_PERIOD)
            elif number in LEAVING:
                while not handled.is_set():
                    signal.pthread_kill(main.ident, number)
                    handled.wait(_PERIOD)
