"""Fixtures for the MCP tests: real servers over stdio and HTTP, all on this machine.

Servers come from .venv (`sys.executable -m mcp_server_time` …) or are the purpose-built `servers/toolbox.py`;
nothing reaches beyond 127.0.0.1.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from visindigo.engine.mcp import MCPManager

from .helpers import TOOLBOX, free_port, wait_for_port


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    """A manager logging to a temporary folder, closed (all servers stopped) after the test."""
    mcp_manager = MCPManager(tmp_path / "logs", startup_timeout=20.0)
    try:
        yield mcp_manager
    finally:
        await mcp_manager.aclose()


@pytest.fixture
def http_toolbox(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """Start `servers/toolbox.py` as an HTTP server ("http" or "sse") on 127.0.0.1; returns its endpoint URL."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(mode: str) -> str:
        port = free_port()
        log = open(tmp_path / f"toolbox-{mode}.log", "wb")  # noqa: SIM115 - closed with the process below
        process = subprocess.Popen([sys.executable, str(TOOLBOX), f"--{mode}", str(port)], stdout=log, stderr=log)
        processes.append(process)
        wait_for_port(port, process)
        return f"http://127.0.0.1:{port}/{'mcp' if mode == 'http' else 'sse'}"

    yield start
    for process in processes:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
