"""Fixtures shared by every test, and the guard that fails the session on any non-loopback connection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import net_guard, suite_plan
from tests.llm_server import LLMServer

#: Fixtures of a damaged big store, for the engine, command-line and app tests of the background check.
pytest_plugins = ["tests.damaged_store"]

#: The network guard's record folder (in the process that owns the session; workers record into it too).
_net_records: list[Path] = []


def _is_worker(config: pytest.Config) -> bool:
    """A pytest-xdist worker (the controller, or a run without workers, owns the session)."""
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    """Guard this process and every Python process the tests start (see tests/net_guard.py)."""
    if _is_worker(config):
        net_guard.start_worker()
    else:
        _net_records.append(net_guard.start_session())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when anything tried to reach beyond loopback: in this process, in a worker or in a process
    either started (every guarded process records into the session's folder)."""
    if _is_worker(session.config) or not _net_records:
        return
    attempts = net_guard.end_session(_net_records.pop())
    if attempts:
        print("\nNETWORK GUARD: non-loopback connection attempts during the tests:", *attempts, sep="\n  ")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (the default, from pyproject.toml): one worker per core this process may use and one more, at
    most four (each worker starts its own session fixtures; past four the groups that must run in one worker
    dominate)."""
    return suite_plan.auto_workers()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The `slow` marker and the xdist groups, by path and name (tests/suite_plan.py); first, so that xdist's
    loadgroup sees the groups."""
    suite_plan.apply(items)


@pytest.fixture(autouse=True)
def isolated_visindigo_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point VISINDIGO_HOME at a fresh temporary folder so no test reads or writes the real home's config or data."""
    home = tmp_path_factory.mktemp("visindigo-home")
    monkeypatch.setenv("VISINDIGO_HOME", str(home))
    yield home


@pytest.fixture(autouse=True)
def fresh_context_counts() -> Iterator[None]:
    """Each test starts with the session's token counters and cache watches empty: they are kept per provider
    and model id, which the tests share ("scripted", "scripted-model"), so what one test's answers taught the
    estimate would change another's meter (and its snapshot)."""
    from visindigo.engine.context.cache import forget_watches
    from visindigo.engine.context.counting import forget_counts

    forget_counts()
    forget_watches()
    yield


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
