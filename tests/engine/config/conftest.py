"""Config fixtures: paths in a temporary home, and the docs' example config (which must stay valid)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from visindigo.engine.paths import Paths, resolve_paths

CONFIGURATION_PAGE = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def documented_example() -> str:
    """The first ```toml block of the docs' Configuration page (docs/configuration.md): the documented example."""
    text = CONFIGURATION_PAGE.read_text(encoding="utf-8")
    section = text[text.index("\n## The file\n") :]
    match = re.search(r"```toml\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    return resolve_paths(tmp_path / "home")


def write(paths: Paths, text: str) -> None:
    paths.config_file.parent.mkdir(parents=True, exist_ok=True)
    paths.config_file.write_text(text, encoding="utf-8")
