"""The plain mode as a screen reader meets it: `python -m visindigo chat --plain` on a pseudo-terminal.

Every byte the program writes is kept (`output`), so a test can assert that the stream holds no escape
sequence at all; `expect` waits for a text to appear after what was already read (never a fixed sleep), and
`send` types a line.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Generous for a loaded machine; the program answers the loopback server within a fraction of a second.
TIMEOUT = 30.0

#: ESC, and the 8-bit controls (C1) a terminal also obeys, as UTF-8 text.
_CONTROL = re.compile("[\x1b\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def _controlling_terminal() -> None:
    """In the child: a session of its own whose controlling terminal is the pty, so ctrl+c typed there is a
    SIGINT for the program, as in a real terminal."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PlainTerminal:
    """The program on a pty: what it wrote, waiting for text, typing lines."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a terminal of 80×24
        self.process = subprocess.Popen(
            [sys.executable, "-m", "visindigo", *argv], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
            preexec_fn=_controlling_terminal,
        )  # fmt: skip
        os.close(slave)
        self._master = master
        self._output = bytearray()
        self._changed = threading.Condition()
        self._closed = False
        #: Where the next `expect` starts looking.
        self.mark = 0
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                data = b""
            with self._changed:
                if not data:
                    self._closed = True
                    self._changed.notify_all()
                    return
                self._output += data
                self._changed.notify_all()

    @property
    def output(self) -> bytes:
        with self._changed:
            return bytes(self._output)

    @property
    def text(self) -> str:
        """Everything written, as text with the terminal's line ends made plain."""
        return self.output.decode("utf-8", errors="replace").replace("\r\n", "\n")

    def expect(self, wanted: str, timeout: float = TIMEOUT) -> str:
        """Wait until `wanted` appears after the mark; returns the text from the mark to its end, and moves the
        mark past it."""
        needle = wanted.replace("\n", "\r\n").encode()
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = self._output.find(needle, self.mark)
                if found >= 0:
                    end = found + len(needle)
                    seen = bytes(self._output[self.mark : end])
                    self.mark = end
                    return seen.decode("utf-8", errors="replace").replace("\r\n", "\n")
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    tail = bytes(self._output[self.mark :])[-1500:].decode(errors="replace")
                    raise AssertionError(f"{wanted!r} did not appear; after the mark it wrote:\n{tail}")
                self._changed.wait(left)

    def prompt(self) -> str:
        """Wait for the prompt: the program is ready for the next line."""
        return self.expect("\n> ")

    def send(self, line: str) -> None:
        os.write(self._master, line.encode() + b"\r")

    def type(self, data: bytes) -> None:
        os.write(self._master, data)

    def finish(self, timeout: float = TIMEOUT) -> int:
        """ctrl+d at the prompt; the exit status once the program has left."""
        os.write(self._master, b"\x04")
        return self.wait(timeout)

    def wait(self, timeout: float = TIMEOUT) -> int:
        try:
            return self.process.wait(timeout)
        finally:
            with self._changed:
                self._changed.wait_for(lambda: self._closed, timeout=5)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        with contextlib.suppress(OSError):
            os.close(self._master)


def control_characters(output: bytes) -> list[str]:
    """Every ESC, C1 control and bidi override in the byte stream (none may be there), with some context."""
    text = output.decode("utf-8", errors="replace")
    return [repr(text[max(0, m.start() - 20) : m.end() + 20]) for m in _CONTROL.finditer(text)]


def carriage_returns(output: bytes) -> int:
    """Carriage returns that are not part of a line end (a line drawn over would need one)."""
    return output.count(b"\r") - output.count(b"\r\n")
