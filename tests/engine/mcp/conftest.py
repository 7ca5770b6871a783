"""Fixtures for the MCP tests: real servers over stdio and HTTP, all on this machine.

Servers come from .venv (`sys.executable -m mcp_server_time` …), from npm (the reference server
server-everything, installed once into pytest's cache: everything.py) or are the purpose-built
`servers/toolbox.py`; nothing reaches beyond 127.0.0.1.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from visindigo.engine.mcp import MCPManager

from .everything import CACHE_NAME, NO_NODE, ROOT, InstallFailed, ensure_installed
from .helpers import TOOLBOX, ServerProcesses


@pytest.fixture
async def manager(tmp_path: Path) -> AsyncIterator[MCPManager]:
    """A manager logging to a temporary folder, closed (all servers stopped) after the test."""
    mcp_manager = MCPManager(tmp_path / "logs", startup_timeout=20.0)
    try:
        yield mcp_manager
    finally:
        await mcp_manager.aclose()


@pytest.fixture
def server_processes(tmp_path: Path) -> Iterator[ServerProcesses]:
    """Test servers run as processes on 127.0.0.1; all stopped after the test."""
    processes = ServerProcesses(tmp_path)
    try:
        yield processes
    finally:
        processes.stop_all()


@pytest.fixture
def http_toolbox(server_processes: ServerProcesses) -> Callable[[str], str]:
    """Start `servers/toolbox.py` as an HTTP server ("http" or "sse") on 127.0.0.1; returns its endpoint URL."""

    def start(mode: str) -> str:
        port = server_processes.start(TOOLBOX, f"--{mode}", "{port}")
        return f"http://127.0.0.1:{port}/{'mcp' if mode == 'http' else 'sse'}"

    return start


@pytest.fixture(scope="session")
def everything_js(request: pytest.FixtureRequest) -> Path:
    """server-everything's `index.js`, installed once (see everything.py); skipped only where node is absent."""
    if shutil.which("node") is None:
        pytest.skip(NO_NODE)
    # Without pytest's cache plugin (`-p no:cacheprovider`) `config.cache` is absent, not None: the install is then
    # looked for where `python -m tests.engine.mcp.everything` puts it, so no run waits on the npm registry.
    cache = getattr(request.config, "cache", None)
    folder = cache.mkdir(CACHE_NAME) if cache is not None else ROOT / ".pytest_cache" / "d" / CACHE_NAME
    try:
        return ensure_installed(folder)
    except InstallFailed as error:
        pytest.fail(str(error))
