"""How far the copying of a damaged dialog store is, on stderr, so a long repair is not a silent wait.

A salvage of the 10,000-dialog store takes tens of seconds (bench/store_integrity.py). On a terminal the one
line is rewritten in place; elsewhere (a log, a pipe) a line is written at each stage and every few seconds.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

#: Seconds between two lines when stderr is not a terminal, and between two rewrites when it is.
LOG_EVERY = 5.0
REDRAW_EVERY = 0.1


def progress_text(stage: str, done: int, total: int) -> str:
    """The line, e.g. "copying messages: 45,000 of about 203,000 (22%)"; the copy's total is an estimate."""
    about = "about " if stage.startswith("copying") else ""
    share = f" ({min(100, done * 100 // total)}%)" if total else ""
    return f"visindigo: repairing the damaged dialog store: {stage}: {done:,} of {about}{total:,}{share}"


class SalvageProgressLine:
    """A `SalvageProgress` callback (stage, done, total) that writes to `stream` (default: stderr)."""

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._clock = clock
        self._stage = ""
        self._last = float("-inf")
        self._open_line = False

    def _target(self) -> TextIO:
        stream = self._stream or sys.stderr
        # The command line's stderr cleans what passes (TerminalWriter) and would drop the carriage return.
        return getattr(stream, "raw", stream)

    def __call__(self, stage: str, done: int, total: int) -> None:
        target = self._target()
        now = self._clock()
        changed = stage != self._stage
        if target.isatty():
            if changed or now - self._last >= REDRAW_EVERY or done >= total:
                target.write("\r" + progress_text(stage, done, total) + "\x1b[K")
                target.flush()
                self._open_line = True
                self._last = now
        elif changed or now - self._last >= LOG_EVERY:
            target.write(progress_text(stage, done, total) + "\n")
            target.flush()
            self._last = now
        self._stage = stage

    def finish(self) -> None:
        """End the line being rewritten (when there is one), so what follows starts on a line of its own."""
        if self._open_line:
            self._target().write("\n")
            self._target().flush()
            self._open_line = False
