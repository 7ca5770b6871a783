"""ctrl+c reaches the plain mode's main thread however it lands: in-process, with real signals."""

from __future__ import annotations

import os
import select
import signal
import threading
import time

import pytest

from visindigo.plain.signals import leaving_on_signals

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="needs POSIX threads and signals")


def _wait_for_input(reading: int) -> str:
    """A wait in C that only a signal delivered to this very thread interrupts, like readline's `select`."""
    try:
        select.select([reading], [], [])
    except KeyboardInterrupt:
        return "interrupted"
    return "input"


def _signal_from_another_thread(number: int, delay: float = 0.2) -> threading.Thread:
    """SIGINT taken by a thread that is not the main one: Python's handler is flagged, the main thread's wait is
    not cut — what happens when ctrl+c lands a moment before the wait begins."""

    def send() -> None:
        time.sleep(delay)
        signal.pthread_kill(threading.get_ident(), number)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def test_a_ctrl_c_that_missed_the_wait_still_interrupts_it() -> None:
    reading, writing = os.pipe()
    fallback = threading.Timer(10, lambda: os.write(writing, b"x"))  # so that a failure fails, rather than hangs
    fallback.start()
    try:
        with leaving_on_signals():
            _signal_from_another_thread(signal.SIGINT)
            started = time.monotonic()
            assert _wait_for_input(reading) == "interrupted"
            assert time.monotonic() - started < 5
    finally:
        fallback.cancel()
        os.close(reading)
        os.close(writing)


def test_one_ctrl_c_is_one_interrupt_however_many_pokes_it_took() -> None:
    """The forwarder pokes until the main thread answers; the pokes that cross the answer raise nothing."""
    reading, writing = os.pipe()
    try:
        with leaving_on_signals():
            with pytest.raises(KeyboardInterrupt):
                _signal_from_another_thread(signal.SIGINT, delay=0.0)
                time.sleep(5)  # interrupted by the poke
            time.sleep(0.3)  # six more poke periods: none may raise again
            os.write(writing, b"x")
            assert _wait_for_input(reading) == "input"
    finally:
        os.close(reading)
        os.close(writing)


def test_outside_the_block_ctrl_c_is_pythons_again() -> None:
    with leaving_on_signals():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
