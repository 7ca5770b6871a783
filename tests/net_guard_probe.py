"""Run only by tests/test_network_guard.py, as a pytest session of its own (the name keeps it out of the suite):
one attempt beyond loopback from the test process (a worker under pytest-xdist) and one from a Python it
starts. Both are caught here, so the tests pass; only the guard's record can fail that session."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

#: "host:port": the worker's attempt goes to port, its child's to port + 1
TARGET = os.environ.get("VISINDIGO_GUARD_PROBE", "")

pytestmark = pytest.mark.skipif(not TARGET, reason="run by tests/test_network_guard.py only")


def _address() -> tuple[str, int]:
    host, port = TARGET.rsplit(":", 1)
    return host, int(port)


def test_an_attempt_in_the_test_process() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        with pytest.raises(PermissionError):
            sock.connect(_address())
    finally:
        sock.close()


def test_an_attempt_in_a_child_of_the_test_process() -> None:
    host, port = _address()
    script = (
        "import socket\n"
        "s = socket.socket()\n"
        "s.settimeout(2)\n"
        "try:\n"
        f"    s.connect(({host!r}, {port + 1}))\n"
        "except PermissionError:\n"
        "    print('refused')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "refused", done.stdout + done.stderr
