"""The main thread's wait for the engine (`console.wait_for`), with a real engine loop and no terminal."""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any

from visindigo.plain.console import EngineLoop, wait_for
from visindigo.plain.reader import LineReader


class CutQueue(queue.Queue[object]):
    """A ctrl+c landing inside `get` after it took the item (the item is lost, KeyboardInterrupt raised), once."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = False

    def get(self, block: bool = True, timeout: float | None = None) -> object:
        item = super().get(block, timeout)
        if not self.cut:
            self.cut = True
            raise KeyboardInterrupt
        return item


async def answer() -> str:
    return "the answer"


def test_a_ctrl_c_that_cuts_the_wait_after_the_end_was_taken_still_returns() -> None:
    engine = EngineLoop()
    engine.questions = CutQueue()
    interrupted: list[bool] = []
    returned: list[Any] = []
    try:
        future = engine.submit(answer())
        future.result(timeout=10)  # done: its _DONE is in the queue (or about to be)
        waiter = threading.Thread(
            target=lambda: returned.append(
                wait_for(engine, future, LineReader(use_readline=False), lambda: interrupted.append(True), print)
            ),
            daemon=True,
        )
        waiter.start()
        waiter.join(timeout=10)
        assert not waiter.is_alive(), "wait_for waited for an end it had already taken"
        assert returned == ["the answer"] and interrupted == []
    finally:
        engine.stop()


def test_a_ctrl_c_flagged_outside_the_wait_still_interrupts_the_run() -> None:
    """A SIGINT whose handler is flagged without interrupting the main thread's wait (it landed just before the
    wait began, or on another thread) must still reach the run: the wait looks at signals while it waits."""
    import signal
    import time

    if not hasattr(signal, "pthread_kill"):
        import pytest

        pytest.skip("needs pthread_kill")
    engine = EngineLoop()
    stop = threading.Event()
    interrupted: list[float] = []

    async def until_interrupted() -> str:
        while not stop.is_set():
            await asyncio.sleep(0.01)
        return "interrupted"

    def interrupt() -> None:
        interrupted.append(time.monotonic())
        stop.set()

    def signal_another_thread() -> None:
        time.sleep(0.3)  # the main thread is in its wait by now
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # taken here: the main thread's wait is not cut

    fallback = threading.Timer(10, stop.set)  # so that a failure fails, rather than hangs
    fallback.start()
    try:
        future = engine.submit(until_interrupted())
        threading.Thread(target=signal_another_thread, daemon=True).start()
        started = time.monotonic()
        assert wait_for(engine, future, LineReader(use_readline=False), interrupt, print) == "interrupted"
        assert interrupted and interrupted[0] - started < 5, "the ctrl+c waited for the run's end"
    finally:
        fallback.cancel()
        engine.stop()
