"""A Visindigo home whose provider is the loopback server, and the plain mode started on a pty against it."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer
from tests.plain.terminal import PlainTerminal

Start = Callable[..., PlainTerminal]

#: A template with a field of each kind the form reads out differently.
REPORT_TEMPLATE = """+++
name = "Trip report"
description = "Ask for a short trip plan"
+++

Plan {{days | number:min=1:max=14:default="3"}} days in {{city | text:placeholder="Kyoto":required}},
{{pace | select:options=["slow","busy"]:default="slow"}}, museums {{museums | checkbox:default="true"}}.
"""


def write_home(home: Path, server: LLMServer, *, tools: str = "") -> Path:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        textwrap.dedent(f"""
        default_provider = "local"
        prompt_dir = "{home / "prompts"}"
        [providers.local]
        kind = "openai"
        base_url = "{server.openai_url}"
        default_model = "test-model"
        [[providers.local.models]]
        id = "test-model"
        capabilities = ["text", "tools", "reasoning"]
        [[providers.local.models]]
        id = "other-model"
        capabilities = ["text", "tools"]
        """)
        + tools,
        encoding="utf-8",
    )
    (home / "prompts").mkdir(exist_ok=True)
    (home / "prompts" / "trip-report.md").write_text(REPORT_TEMPLATE, encoding="utf-8")
    return home


@pytest.fixture
def plain_home(tmp_path: Path, llm_server: LLMServer) -> Path:
    return write_home(tmp_path / "home", llm_server)


def plain_env(home: Path, term: str = "xterm-256color", **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO", "NO_COLOR"))}
    env.update(TERM=term, VISINDIGO_HOME=str(home), COLUMNS="80", LINES="24", **extra)
    return env


@pytest.fixture
def work_dir(tmp_path: Path) -> Path:
    """The folder the program runs in, so what it writes there by default (an export) stays in the test's tmp."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def start_plain(plain_home: Path, work_dir: Path) -> Iterator[Start]:
    """`start_plain(*argv, term=..., home=..., **env)`: the plain mode on a pty (closed after the test), run in
    `work_dir`."""
    started: list[PlainTerminal] = []

    def start(*argv: str, term: str = "xterm-256color", home: Path | None = None, **extra: str) -> PlainTerminal:
        terminal = PlainTerminal(["chat", "--plain", *argv], plain_env(home or plain_home, term, **extra), work_dir)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.close()
