"""Where the plain mode writes: whole lines, and the one stream of an answer as it arrives.

A screen reader reads what is appended and never what is redrawn, so nothing here moves the cursor or rewrites
a line: a status is a new line, and a line interrupted by another (a tool call in the middle of an answer) is
ended first. Every piece of text goes through the project's one sanitising function (`engine.sanitize`), and a
stream through a `StreamCleaner`, so an escape sequence in model output never reaches the terminal, even one
cut in half between two deltas. The only escape sequences ever written are the labels' own colours, and only
when the user asked for colour.

Written from the engine's thread while the main thread waits, so every write holds a lock.
"""

from __future__ import annotations

import threading
from typing import TextIO

from visindigo.engine.sanitize import StreamCleaner, clean

#: SGR colours of the labels when colour is asked for: (start, end).
_COLOURS = {
    "answer": ("\x1b[1m", "\x1b[22m"),
    "reasoning": ("\x1b[2m", "\x1b[22m"),
    "tool": ("\x1b[36m", "\x1b[39m"),
    "problem": ("\x1b[1;31m", "\x1b[22;39m"),
    "status": ("\x1b[32m", "\x1b[39m"),
}


class Output:
    """Lines and streams, cleaned, to one text stream."""

    def __init__(self, stream: TextIO, *, colour: bool = False) -> None:
        self._stream = stream
        self._colour = colour
        self._lock = threading.RLock()
        self._cleaner = StreamCleaner()
        self._at_line_start = True

    def line(self, text: str = "", *, label: str = "", kind: str = "") -> None:
        """One line (or several, when `text` has newlines) after ending a line a stream left open."""
        with self._lock:
            self._end_stream()
            self._write_label(label, kind)
            body = clean(text)
            self._stream.write(body + "\n")
            self._at_line_start = True
            self._stream.flush()

    def begin(self, label: str, *, kind: str = "") -> None:
        """Start a labelled stream on a line of its own ("Answer: " and the text that follows)."""
        with self._lock:
            self._end_stream()
            self._write_label(label, kind)
            self._at_line_start = False
            self._stream.flush()

    def stream(self, text: str) -> None:
        """Append streamed text as it is (cleaned, with a sequence cut between pieces held back)."""
        with self._lock:
            shown = self._cleaner.feed(text)
            if shown:
                self._stream.write(shown)
                self._at_line_start = shown.endswith("\n")
                self._stream.flush()

    def end(self) -> None:
        """End the stream's line, if one is open."""
        with self._lock:
            self._end_stream()
            self._stream.flush()

    def _end_stream(self) -> None:
        rest = self._cleaner.flush()
        if rest:
            self._stream.write(rest)
            self._at_line_start = rest.endswith("\n")
        if not self._at_line_start:
            self._stream.write("\n")
            self._at_line_start = True

    def _write_label(self, label: str, kind: str) -> None:
        if not label:
            return
        text = clean(label) + " "
        if self._colour and kind in _COLOURS:
            start, end = _COLOURS[kind]
            text = f"{start}{clean(label)}{end} "
        self._stream.write(text)
