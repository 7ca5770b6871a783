"""Running the real app on a pseudo-terminal until its first frame, then quitting it with ctrl+q."""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
#: SGR parameters that set a colour: 30-37, 40-47, 90-97, 100-107 and the extended 38 / 48 forms.
COLOUR_CODES = {*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108), 38, 48}


def first_frame(env: dict[str, str], home: Path, *, marker: bytes = b"Keys", timeout: float = 60.0) -> bytes:
    """Every byte `visindigo --demo` writes at 80x24 until `marker` is on screen and the app has quit."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    full_env = {**env, "VISINDIGO_HOME": str(home), "HOME": str(home), "TERM": "xterm-256color"}
    process = subprocess.Popen(
        [sys.executable, "-m", "visindigo", "--demo"], stdin=slave, stdout=slave, stderr=slave, env=full_env
    )
    os.close(slave)
    output = bytearray()
    quit_sent = False
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
                if not quit_sent and marker in output:
                    os.write(master, b"\x11")  # ctrl+q
                    quit_sent = True
            elif process.poll() is not None:
                break
        process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return bytes(output)


def colour_codes(stream: bytes) -> set[int]:
    """The colour-setting SGR parameters in `stream` (sub-parameters of 38/48 are not counted separately)."""
    found: set[int] = set()
    for match in SGR.finditer(stream):
        params = [p for p in re.split(rb"[;:]", match.group(1)) if p]
        index = 0
        while index < len(params):
            value = int(params[index])
            if value in COLOUR_CODES:
                found.add(value)
            if value in (38, 48):  # 38;5;n or 38;2;r;g;b: skip the operands
                index += 2 if index + 1 < len(params) and params[index + 1] == b"5" else 4
            index += 1
    return found


def text_styles(stream: bytes) -> set[int]:
    """The SGR parameters for bold (1), dim (2), italic (3), underline (4) and reverse (7) in `stream`."""
    styles: set[int] = set()
    for match in SGR.finditer(stream):
        for param in re.split(rb"[;:]", match.group(1)):
            if param in (b"1", b"2", b"3", b"4", b"7"):
                styles.add(int(param))
    return styles
