"""A terminal that someone else set non-blocking and that is full for a while: what did not fit is lost, and
the app is told so that its next frame rewrites every cell (the output stage would otherwise believe the
terminal shows what it sent, and later frames would only patch a screen that is not there)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from rich.segment import Segment
from textual._compositor import LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from tests.tui.helpers import make_app
from visindigo.tui.platform.output_stage import stage_of
from visindigo.tui.platform.terminal_driver import GuardedOutput, SturdyLinuxDriver


@pytest.fixture
def full_pipe() -> Iterator[tuple[io.TextIOWrapper, int]]:
    """A text stream on the non-blocking write end of a real pipe, and the read end."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    stream = io.TextIOWrapper(io.BufferedWriter(io.FileIO(write_end, "w"), buffer_size=4096), write_through=True)
    yield stream, read_end
    with contextlib.suppress(OSError):  # (what is still buffered cannot be written: the pipe is full)
        stream.close()
    os.close(read_end)


def drain(read_end: int) -> int:
    os.set_blocking(read_end, False)
    total = 0
    try:
        while chunk := os.read(read_end, 1 << 16):
            total += len(chunk)
    except BlockingIOError:
        pass
    return total


def test_a_full_terminal_loses_the_frame_and_says_so_once_until_a_write_goes_through(
    full_pipe: tuple[io.TextIOWrapper, int],
) -> None:
    stream, read_end = full_pipe
    lost: list[str] = []
    dropped: list[str] = []
    output = GuardedOutput(stream, lambda: lost.append("lost"), lambda: dropped.append("dropped"))
    output.DRAIN_WAIT = 0.01
    frame = "x" * 8192
    for _ in range(64):  # ~512 KB into a pipe of 64 KB: it fills
        assert output.write(frame) == len(frame)  # (the caller is never failed)
    assert dropped == ["dropped"] and not lost and not output.gone
    assert drain(read_end) > 0
    output.write("after the terminal drained")  # goes through: the next full terminal is told again
    for _ in range(64):
        output.write(frame)
    assert dropped == ["dropped", "dropped"] and not lost


async def test_the_app_told_of_a_loss_forgets_what_it_sent_and_draws_a_frame() -> None:
    """`SturdyLinuxDriver._output_dropped`, run on the output thread, has the app's loop make the output stage
    forget what the terminal shows (so the next frame writes every cell, see test_output_stage) and draw."""
    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        stage = stage_of(app)
        stage.apply(LayoutUpdate([Strip([Segment("shown")])], Region(0, 0, 5, 1)))
        stage.frame()
        assert stage._sent is not None
        driver = SimpleNamespace(_app=app, _loop=asyncio.get_running_loop())
        refreshed: list[bool] = []
        screen_refresh = app.screen.refresh
        app.screen.refresh = lambda *a, **k: refreshed.append(True) or screen_refresh(*a, **k)  # type: ignore[method-assign]
        thread = threading.Thread(target=SturdyLinuxDriver._output_dropped, args=(driver,))
        thread.start()
        thread.join()
        await pilot.pause()
        assert stage._sent is None and refreshed
