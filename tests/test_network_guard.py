"""The suite's own guard: nothing in the tests, or in the servers they start, may reach beyond loopback — in the
test process, in a pytest-xdist worker, or in any Python process either starts."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests import net_guard
from tests.net_guard import fetch_server_env, no_npm_path

ROOT = Path(__file__).resolve().parents[1]
PROBE = "tests/net_guard_probe.py"
TEST_NET = "192.0.2.1"  # TEST-NET-1 (RFC 5737): never routed, so even a failure of the guard reaches nobody


def _port() -> int:
    """A port of this process's own, so that its attempts are told apart from another worker's."""
    return 1024 + (os.getpid() * 7) % 60000


def _records() -> list[str]:
    folder = net_guard.session_folder()
    assert folder is not None, "the session has no record folder"
    return net_guard.read_records(folder)


def test_the_test_process_cannot_connect_beyond_loopback() -> None:
    target = f"{TEST_NET}:{_port()}"
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(PermissionError, match="network guard"):
            sock.connect((TEST_NET, _port()))
        assert any(target in line for line in _records())  # what fails the run, in a worker too
    finally:
        sock.close()
        net_guard.forget(target)
    name = f"registry-{os.getpid()}.npmjs.org"
    try:
        with pytest.raises(PermissionError, match="network guard"):
            socket.getaddrinfo(name, 443)
        assert any(name in line for line in _records())
    finally:
        net_guard.forget(name)
    with socket.create_server(("127.0.0.1", 0)) as server:  # loopback still works
        socket.create_connection(server.getsockname()[:2], timeout=5).close()


def test_a_python_process_started_by_the_tests_is_guarded_too() -> None:
    """Like an MCP server: a child Python with an environment reduced to a few variables (no PYTHONPATH)."""
    target = f"{TEST_NET}:{_port() + 1}"
    script = (
        "import socket\n"
        "s = socket.socket()\n"
        "try:\n"
        f"    s.connect(({TEST_NET!r}, {_port() + 1}))\n"
        "except PermissionError as e:\n"
        "    print('refused:', e)\n"
        "except OSError as e:\n"
        "    print('NOT GUARDED:', e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60
    )
    try:
        assert done.stdout.startswith("refused:") and "network guard" in done.stdout, done.stdout + done.stderr
        assert any(target in line for line in _records())
    finally:
        net_guard.forget(target)


@pytest.mark.parametrize("workers", ["2", "0"])
def test_an_attempt_in_a_worker_or_its_child_fails_the_run(workers: str) -> None:
    """A pytest session of its own (tests/net_guard_probe.py) whose tests catch their refusals and pass: the run
    fails all the same, and names both attempts. Its processes record into their own session, not this one."""
    port = _port() + 2
    env = {**os.environ, "VISINDIGO_GUARD_PROBE": f"{TEST_NET}:{port}"}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", workers, PROBE]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    said = done.stdout + done.stderr
    assert "2 passed" in said, said
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, said
    assert "NETWORK GUARD" in said, said
    assert f"a connection to {TEST_NET}:{port}" in said and f"a connection to {TEST_NET}:{port + 1}" in said, said
    if workers != "0":
        assert "2 workers" in said, said
    assert not [line for line in _records() if f"{TEST_NET}:{port}" in line or f"{TEST_NET}:{port + 1}" in line]


def test_fetch_servers_run_without_npm_or_node_on_their_path(tmp_path: Path) -> None:
    """readabilipy runs `npm install` (from the public registry) when node and npm are on PATH."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for tool in ("node", "npm"):
        (fake_bin / tool).write_text("#!/bin/sh\nexit 0\n")
        (fake_bin / tool).chmod(0o755)
    assert str(fake_bin) not in no_npm_path(f"{fake_bin}:/usr/bin:/bin").split(":")
    path = fetch_server_env()["PATH"]
    assert shutil.which("npm", path=path) is None and shutil.which("node", path=path) is None
    probe = "from readabilipy.simple_json import have_node; print(have_node())"
    done = subprocess.run(
        [sys.executable, "-c", probe], env={"PATH": path}, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "False", done.stdout + done.stderr
