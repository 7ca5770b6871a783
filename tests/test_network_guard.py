"""The suite's own guard: nothing in the tests, or in the servers they start, may reach beyond loopback."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests import net_guard
from tests.conftest import _NET_LOG
from tests.net_guard import fetch_server_env, no_npm_path

TEST_NET = "192.0.2.1"  # TEST-NET-1 (RFC 5737): never routed, so even a failure of the guard reaches nobody


def _forget(marker: str) -> None:
    """Take this test's own deliberate attempts out of the record, so they do not fail the session."""
    net_guard.refused[:] = [what for what in net_guard.refused if marker not in what]
    lines = [line for line in net_guard.read_log(_NET_LOG) if marker not in line]
    if _NET_LOG.exists():
        _NET_LOG.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def test_the_test_process_cannot_connect_beyond_loopback() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(PermissionError, match="network guard"):
            sock.connect((TEST_NET, 9))
    finally:
        sock.close()
        assert any(TEST_NET in what for what in net_guard.refused)
        _forget(TEST_NET)
    with pytest.raises(PermissionError, match="network guard"):
        socket.getaddrinfo("registry.npmjs.org", 443)
    _forget("registry.npmjs.org")
    with socket.create_server(("127.0.0.1", 0)) as server:  # loopback still works
        socket.create_connection(server.getsockname()[:2], timeout=5).close()


def test_a_python_process_started_by_the_tests_is_guarded_too(tmp_path: Path) -> None:
    """Like an MCP server: a child Python with an environment reduced to a few variables (no PYTHONPATH)."""
    script = (
        "import socket\n"
        "s = socket.socket()\n"
        "try:\n"
        f"    s.connect(({TEST_NET!r}, 9))\n"
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
        assert any(TEST_NET in line for line in net_guard.read_log(_NET_LOG))
    finally:
        _forget(TEST_NET)


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
