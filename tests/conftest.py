"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer


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
