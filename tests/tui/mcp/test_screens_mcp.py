"""MCP server manager: live status from a real stdio server, add/edit/toggle/remove/import into real config files."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from tests.tui.screens_host import ScreenHost, screen_text
from visindigo.engine import Center, MCPServer
from visindigo.engine.config import load_config
from visindigo.engine.mcp import MCPManager
from visindigo.engine.paths import Paths, ensure_dirs, resolve_paths
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.mcp.form import KEPT, format_pairs, parse_pairs
from visindigo.tui.mcp.servers import ImportScreen, MCPServerFormScreen, MCPServersScreen

SECRET = "ghp_0123456789abcdefghijklmnopqrstuv"
TIME = MCPServer("time", command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC"))


@pytest.fixture
def paths() -> Paths:
    result = resolve_paths()
    ensure_dirs(result)
    return result


def make_center() -> Center:
    center = Center()
    center.add_mcp(TIME)
    center.add_mcp(
        MCPServer(
            "github",
            command="npx",
            args=("-y", "@modelcontextprotocol/server-github"),
            env={"GITHUB_PERSONAL_ACCESS_TOKEN": SECRET, "DEBUG": "1"},
            enabled=False,
        )
    )
    center.add_mcp(
        MCPServer("remote", url="https://mcp.example.invalid/mcp", headers={"Authorization": "Bearer ${REMOTE_TOKEN}"})
    )
    return center


def config(paths: Paths) -> dict[str, object]:
    return tomllib.loads(paths.config_file.read_text(encoding="utf-8")) if paths.config_file.exists() else {}


def test_secret_values_are_never_shown_back_but_kept() -> None:
    env = {"GITHUB_TOKEN": SECRET, "DEBUG": "1", "API": "${API_KEY}"}
    text = format_pairs(env)
    assert SECRET not in text and f"GITHUB_TOKEN={KEPT}" in text and "DEBUG=1" in text and "API=${API_KEY}" in text
    assert parse_pairs(text, env, "environment") == env
    with pytest.raises(ValueError, match="entry 1 is not NAME=value"):
        parse_pairs("oops", {}, "environment")
    with pytest.raises(ValueError, match="NEW has no stored value"):
        parse_pairs(f"NEW={KEPT}", {}, "environment")


async def test_status_comes_from_a_real_server_and_restart_starts_it(paths: Paths) -> None:
    manager = MCPManager()
    center = make_center()
    app = ScreenHost(lambda: MCPServersScreen(center, paths, manager, poll_interval=0.1))
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MCPServersScreen)
            assert [screen.status_of(s)[0] for s in center.mcp_servers] == ["stopped", "disabled", "stopped"]
            await pilot.press("r")
            for _ in range(300):
                await pilot.pause(0.05)
                if "running with" in str(screen.query_one("#status").render()):
                    break
            assert manager.status("time").tool_count == 2
            assert "running with 2 tools" in str(screen.query_one("#status").render())
            assert "2 tools, 0 prompts" in str(screen.query_one("#detail").render())
            await pilot.press("space")  # disable: written, and the process is stopped
            for _ in range(100):
                await pilot.pause(0.05)
                if manager.status("time").state.value == "stopped":
                    break
            assert manager.status("time").state.value == "stopped"
            assert screen.status_of(center.mcp_servers[0])[0] == "disabled"
            await pilot.press("down", "r")  # a disabled server is not started
            assert "is disabled" in str(screen.query_one("#status").render())
    finally:
        await manager.aclose()
    assert config(paths)["mcp_servers"]["time"]["disabled"] is True  # type: ignore[index]
    assert center.mcp_servers[0].enabled is False


async def test_env_values_never_reach_the_screen(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: MCPServersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down")
        listed = screen_text(app)
        await pilot.press("e")
        await pilot.pause()
        form = screen_text(app)
        await pilot.press("ctrl+s")  # saving unchanged keeps the secret in the config
        await pilot.pause()
    assert "env GITHUB_PERSONAL_ACCESS_TOKEN, DEBUG" in listed
    assert SECRET not in listed and SECRET not in form
    assert f"GITHUB_PERSONAL_ACCESS_TOKEN={KEPT}" in form
    assert config(paths)["mcp_servers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"] == SECRET  # type: ignore[index]


async def test_add_a_stdio_server_by_keys_with_validation(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: MCPServersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MCPServerFormScreen)
        await pilot.press(*"time", "ctrl+s")
        error = str(form.query_one("#error").render())
        assert "there is a server called 'time' already" in error and "a stdio server needs a command" in error
        await pilot.press("ctrl+u", *"fetch", "tab", "tab", *"uvx", "tab", *"mcp-server-fetch --ignore-robots-txt")
        await pilot.press("tab", *'PROXY="http://127.0.0.1:3128"')
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, MCPServersScreen)
    added = {s.name: s for s in center.mcp_servers}["fetch"]
    assert added.command == "uvx" and added.args == ("mcp-server-fetch", "--ignore-robots-txt")
    assert dict(added.env) == {"PROXY": "http://127.0.0.1:3128"}
    loaded, problems = load_config(paths)
    assert problems == [] and [s.name for s in loaded.mcp_servers] == ["fetch"]
    assert loaded.mcp_servers[0] == added


async def test_an_http_server_needs_a_url(paths: Paths) -> None:
    app = ScreenHost(lambda: MCPServerFormScreen())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        form = app.screen
        assert isinstance(form, MCPServerFormScreen)
        await pilot.press(*"remote2")
        form.query_one("#transport", Select).value = "http"
        form.query_one("#url", Input).value = "mcp.example.invalid"
        await pilot.press("ctrl+s")
        assert "needs a URL starting with http" in str(form.query_one("#error").render())
        form.query_one("#url", Input).value = "https://mcp.example.invalid/mcp"
        form.query_one("#headers", Input).value = "Authorization='Bearer ${TOKEN}'"
        await pilot.press("ctrl+s")
        await pilot.pause()
    [server] = app.results
    assert isinstance(server, MCPServer)
    assert server.kind == "http" and server.url == "https://mcp.example.invalid/mcp"
    assert dict(server.headers) == {"Authorization": "Bearer ${TOKEN}"}


async def test_import_a_claude_desktop_file(paths: Paths, tmp_path: Path) -> None:
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": "uvx", "args": ["mcp-server-time"]},
                    "git": {"command": "uvx", "args": ["mcp-server-git", "--repository", "."]},
                }
            }
        ),
        encoding="utf-8",
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    center = make_center()
    app = ScreenHost(lambda: MCPServersScreen(center, paths, import_default=broken))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, ImportScreen)
        await pilot.press("enter")  # the default: the broken file
        await pilot.pause()
        status = str(app.screen.query_one("#status").render())
        assert "Nothing imported" in status and "not valid JSON" in status
        await pilot.press("i")
        await pilot.pause()
        await pilot.press("ctrl+u", *str(source), "enter")
        await pilot.pause()
        status = str(app.screen.query_one("#status").render())
    assert "Imported 1 server (git)" in status and "kept 1 of the same name (time)" in status
    assert [s.name for s in center.mcp_servers] == ["time", "github", "remote", "git"]
    assert center.mcp_servers[0] == TIME  # not replaced
    assert list(config(paths)["mcp_servers"]) == ["git"]  # type: ignore[call-overload]


async def test_remove_asks_first(paths: Paths) -> None:
    center = make_center()
    app = ScreenHost(lambda: MCPServersScreen(center, paths))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape", "x", "y", "escape")
        await pilot.pause()
    assert [s.name for s in center.mcp_servers] == ["github", "remote"]
    assert app.results == [True]
