"""SIGTERM and SIGHUP leave the plain mode as ctrl+d does: runs cancelled with their partial answers kept, the
store closed, instead of Python's default of dying on the spot.

Python runs a signal's handler in the main thread, and only when that thread next gets out of C code: a
blocking read (readline's wait for a key, `input()` from a pipe, a queue) gives way only when the signal
interrupts the very system call it waits in. A signal that lands a moment before that call, or on the engine's
thread, would wait for the next key press — a `kill` seemingly ignored. So every signal is also written to a
wakeup pipe (`signal.set_wakeup_fd`), and a small thread that reads it sends the signal on to the main thread
until its handler has run.

ctrl+c is the terminal's SIGINT for the whole process, which the kernel gives to any thread that does not block
it; taken by the engine's thread, it would wake nobody (the main thread's readline keeps waiting for a key). So
every thread the plain mode starts is started with SIGINT blocked (`main_thread_signals`): the kernel then
always hands it to the main thread, inside the wait it interrupts.
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


@contextlib.contextmanager
def leaving_on_signals() -> Iterator[None]:
    """Within: SIGTERM or SIGHUP raise SystemExit(128 + signal) in the main thread, once (a repeated signal
    does not interrupt the clean-up that follows)."""
    if threading.current_thread() is not threading.main_thread() or not LEAVING:
        yield
        return
    handled = threading.Event()

    def leave(number: int, frame: FrameType | None) -> None:
        if handled.is_set():
            return
        handled.set()
        raise SystemExit(128 + number)

    saved = {number: signal.signal(number, leave) for number in LEAVING}
    reading, writing = os.pipe()
    os.set_blocking(writing, False)
    saved_fd = signal.set_wakeup_fd(writing, warn_on_full_buffer=False)
    forwarder = threading.Thread(
        target=_forward, args=(reading, threading.main_thread(), handled), name="visindigo-signals", daemon=True
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


def _forward(reading: int, main: threading.Thread, handled: threading.Event) -> None:
    """Each leaving signal written to the pipe is sent to the main thread, every 50 ms, until it was handled."""
    while data := os.read(reading, 64):
        for number in data:
            if number not in LEAVING or main.ident is None:
                continue
            while not handled.is_set():
                signal.pthread_kill(main.ident, number)
                handled.wait(0.05)
