"""Importing server lists users already have (Claude Desktop, Cursor, VS Code): all or nothing, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from visindigo.engine.mcp import claude_desktop_config_path, load_mcp_servers_file


def test_a_claude_desktop_file_becomes_servers_with_references_kept(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone=Europe/Berlin"]},
                    "github": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${GITHUB_PAT}"}},
                    "remote": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${T}"}},
                },
                "globalShortcut": "Ctrl+Space",
            }
        ),
        encoding="utf-8",
    )
    servers = {s.name: s for s in load_mcp_servers_file(path)}
    assert servers["time"].kind == "stdio"
    assert servers["time"].args == ("mcp-server-time", "--local-timezone=Europe/Berlin")
    assert dict(servers["github"].env) == {"GITHUB_TOKEN": "${GITHUB_PAT}"}
    assert servers["remote"].kind == "http" and dict(servers["remote"].headers) == {"Authorization": "Bearer ${T}"}


def test_a_vs_code_file_with_servers_and_types(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"servers": {"legacy": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}', encoding="utf-8")
    [server] = load_mcp_servers_file(path)
    assert server.kind == "sse"


def test_missing_file_and_bad_json_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        load_mcp_servers_file(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {\n  "x": {"command": "a",}\n}}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.json: not valid JSON \(.* line 2, column \d+\)"):
        load_mcp_servers_file(bad)


def test_an_entry_without_command_or_url_names_the_file_and_server(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"mcpServers": {"broken": {"args": []}}}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"c.json: MCP server 'broken' needs a 'command'"):
        load_mcp_servers_file(path)


def test_claude_desktop_path_follows_xdg_on_linux(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert claude_desktop_config_path() == tmp_path / "Claude" / "claude_desktop_config.json"
