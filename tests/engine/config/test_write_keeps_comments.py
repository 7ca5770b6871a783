"""Every writer of engine/config/write.py changes a commented config.toml without losing a comment, the order
of what it did not touch, or how the untouched lines were written."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from visindigo.engine import MCPServer, Provider, Skill
from visindigo.engine.config import load_config, write
from visindigo.engine.paths import Paths

from .conftest import write as write_file

COMMENTED = """\
# My Visindigo setup: keep these notes!
theme = "nord"   # the dark one

# --- work ---
default_provider = "work"

[keys]
# my keys
regenerate = "f5"  # muscle memory

[providers.work]
# the office proxy
kind = "openai"
base_url = "https://llm.example.com/v1"  # via VPN
api_key_env = "WORK_KEY"

[providers.spare]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"

[skills.terse]
content = "Be brief."  # always

[skills.spare]
content = "x"

[mcp_servers.time]
command = "uvx"   # from PyPI
args = ["mcp-server-time"]

[mcp_servers.spare]
command = "true"
"""

#: Lines that must survive every writer exactly as written (none of the writers below is about them).
KEPT_LINES = [
    "# My Visindigo setup: keep these notes!",
    "# --- work ---",
    "[keys]",
    "# my keys",
    "[providers.work]",
    "# the office proxy",
    'base_url = "https://llm.example.com/v1"  # via VPN',
    "[skills.terse]",
    'content = "Be brief."  # always',
    "[mcp_servers.time]",
    'command = "uvx"   # from PyPI',
]


def _claude_file(tmp_path: Path) -> Path:
    source = tmp_path / "claude.json"
    source.write_text(json.dumps({"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}))
    return source


WORK = Provider("work", kind="openai", base_url="https://llm.example.com/v1", api_key_env="WORK_KEY")

#: One change per writer, none touching KEPT_LINES; each must leave the file loading without problems.
CHANGES: dict[str, Callable[[Paths, Path], object]] = {
    "update_config": lambda p, t: write.update_config(p, lambda d: d.__setitem__("future", 1)),
    "update_credentials": lambda p, t: write.update_credentials(p, lambda d: d.__setitem__("note", "x")),
    "add_provider": lambda p, t: write.add_provider(p, Provider("new", kind="openai", base_url="http://h/v1")),
    "update_provider": lambda p, t: write.update_provider(p, WORK, api_key="sk-test-123456"),
    "save_provider": lambda p, t: write.save_provider(p, WORK),
    "remove_provider": lambda p, t: write.remove_provider(p, "spare"),
    "set_api_key": lambda p, t: write.set_api_key(p, "work", "sk-test-123456"),
    "set_default_provider": lambda p, t: write.set_default_provider(p, "spare", "m1"),
    "set_theme": lambda p, t: write.set_theme(p, "gruvbox"),
    "set_key_binding": lambda p, t: write.set_key_binding(p, "new-dialog", "ctrl+n"),
    "set_prompt_dir": lambda p, t: write.set_prompt_dir(p, "my-prompts"),
    "set_max_tool_rounds": lambda p, t: write.set_max_tool_rounds(p, 8),
    "set_package_tool": lambda p, t: write.set_package_tool(p, "weather", enabled=True, allowed=False),
    "save_skill": lambda p, t: write.save_skill(p, Skill("terse", "Be brief.", description="short")),
    "remove_skill": lambda p, t: write.remove_skill(p, "spare"),
    "add_mcp_server": lambda p, t: write.add_mcp_server(p, MCPServer("time", command="uvx", args=("mcp-server-time",)),
                                                        replace=True),
    "remove_mcp_server": lambda p, t: write.remove_mcp_server(p, "spare"),
    "import_mcp_servers": lambda p, t: write.import_mcp_servers(p, _claude_file(t)),
}


def test_every_writer_is_covered() -> None:
    """A new writer in write.py without a case here fails: its comment keeping would go untested."""
    writers = {
        name
        for name, value in vars(write).items()
        if inspect.isfunction(value) and value.__module__ == write.__name__ and not name.startswith("_")
    }
    assert writers - {"model_entry", "mcp_entry"} == set(CHANGES)


@pytest.mark.parametrize("writer", sorted(CHANGES))
def test_a_writer_keeps_comments_order_and_formatting(writer: str, paths: Paths, tmp_path: Path) -> None:
    write_file(paths, COMMENTED)
    CHANGES[writer](paths, tmp_path)
    text = paths.config_file.read_text(encoding="utf-8")
    lines = text.splitlines()
    positions = [lines.index(line) for line in KEPT_LINES]  # ValueError names a line that was lost or rewritten
    assert positions == sorted(positions), "the untouched lines kept their order"
    if writer != "set_theme":
        assert 'theme = "nord"   # the dark one' in lines
    if writer != "set_default_provider":
        assert re.search(r'^default_provider = "work"$', text, re.MULTILINE)
    _, problems = load_config(paths)
    assert problems == []


def test_a_changed_value_keeps_its_comment_line_neighbours(paths: Paths) -> None:
    write_file(paths, COMMENTED)
    write.set_theme(paths, "gruvbox")
    text = paths.config_file.read_text(encoding="utf-8")
    assert text.startswith('# My Visindigo setup: keep these notes!\ntheme = "gruvbox"')
    assert load_config(paths)[0].theme == "gruvbox"


def test_a_new_file_starts_with_the_header_and_an_existing_one_keeps_its_own(paths: Paths) -> None:
    write.set_theme(paths, "nord")
    assert paths.config_file.read_text(encoding="utf-8").startswith("# Visindigo configuration.")
    write_file(paths, "# mine\ntheme = \"nord\"\n")
    write.set_theme(paths, "gruvbox")
    assert paths.config_file.read_text(encoding="utf-8") == '# mine\ntheme = "gruvbox"\n'
