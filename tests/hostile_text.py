"""Hostile text for the sanitising tests, and a pseudo-terminal that records every byte a program writes.

Each sequence carries a marker inside it: cleaning removes whole sequences, so a marker seen in the output
means a sequence reached the terminal (or was cut in half and its body leaked).
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

#: (name, sequence); the markers are the upper-case words.
SEQUENCES = [
    ("OSC 52 clipboard, BEL", "\x1b]52;c;Q0xJUEJPQVJE\x07"),
    ("OSC 0 window title, ST", "\x1b]0;WINDOWTITLE\x1b\\"),
    ("OSC 8 hyperlink", "\x1b]8;;http://evil.invalid/HYPERLINK\x07link\x1b]8;;\x07"),
    ("CSI", "\x1b[31;1;4;5;7mSGR\x1b[0m\x1b[2J"),
    ("C1 CSI and OSC", "\x9b31;5;7m\x9d0;CONE\x9c"),
    ("bidi override", "\u202eRLO\u2066ISO\u2069"),
]
MARKERS = ["Q0xJUEJPQVJE", "WINDOWTITLE", "HYPERLINK", "CONE"]
HOSTILE = "".join(f"{name}: {sequence} " for name, sequence in SEQUENCES)

# Bytes a terminal would act on, as they would appear in the output (UTF-8).
FORBIDDEN_BYTES = [
    b"\x1b]52",
    b"\x1b]0;WINDOW",
    b"\x1b]8;;http://evil",
    b"\x1b[31;1;4;5;7m",
    "\x9b".encode(),
    "\x9d".encode(),
    "\u202e".encode(),
    "\u2066".encode(),
]


def leaks(output: bytes) -> list[str]:
    """What of the hostile text reached the terminal: markers and forbidden byte sequences found."""
    found = [marker for marker in MARKERS if marker.encode() in output]
    found += [repr(sequence) for sequence in FORBIDDEN_BYTES if sequence in output]
    return found


def run_in_pty(argv: Sequence[str], env: dict[str, str], *, timeout: float = 60.0, cwd: Path | None = None) -> bytes:
    """Run `argv` with stdin, stdout and stderr on a pseudo-terminal; every byte it wrote, until it exits."""
    master, slave = os.openpty()
    process = subprocess.Popen(list(argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd)
    os.close(slave)
    output = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                output += data
            elif process.poll() is not None:
                break
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return bytes(output)
