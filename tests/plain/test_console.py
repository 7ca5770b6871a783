"""The main thread's wait for the engine (`console.wait_for`), with a real engine loop and no terminal."""

from __future__ import annotations

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
