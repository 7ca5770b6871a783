"""Fixtures shared by every test, and the guard that fails the session on any non-loopback connection."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import net_guard
from tests.llm_server import LLMServer

#: Fixtures of a damaged big store, for the engine, command-line and app tests of the background check.
pytest_plugins = ["tests.damaged_store"]

_NET_LOG = Path(tempfile.gettempdir()) / f"visindigo-net-guard-{os.getpid()}.log"


def pytest_configure(config: pytest.Config) -> None:
    """Guard this process and every Python process the tests start (see tests/net_guard.py)."""
    _NET_LOG.unlink(missing_ok=True)
    net_guard.start_session(_NET_LOG)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when anything tried to reach beyond loopback, in this process or in one it started."""
    net_guard.end_session()
    # Every guarded process (this one too) appends to the log; what this process refused is the fallback.
    attempts = net_guard.read_log(_NET_LOG) or [f"test process: {what}" for what in net_guard.refused]
    _NET_LOG.unlink(missing_ok=True)
    if attempts:
        print("\nNETWORK GUARD: non-loopback connection attempts during the tests:", *attempts, sep="\n  ")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def isolated_visindigo_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point VISINDIGO_HOME at a fresh temporary folder so no test reads or writes the real home's config or data."""
    home = tmp_path_factory.mktemp("visindigo-home")
    monkeypatch.setenv("VISINDIGO_HOME", str(home))
    yield home


@pytest.fixture
def llm_server() -> Iterator[LLMServer]:
    """A scripted OpenAI / Anthropic endpoint on 127.0.0.1 (see tests/llm_server.py for how to script it)."""
    with LLMServer() as server:
        yield server


@pytest.fixture
def example_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The small tool package of tests/plugin_package.py, installed (dist-info and all) in a folder on sys.path."""
    import sys

    from tests.plugin_package import PACKAGE, install_example_tools

    site = install_example_tools(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [n for n in sys.modules if n.startswith(PACKAGE)]:
        del sys.modules[name]
