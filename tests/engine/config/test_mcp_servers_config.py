"""MCP servers in config.toml: `[mcp_servers]` and the other clients' `[mcpServers]` alike, unknown keys reported."""

from __future__ import annotations

from visindigo.engine.config import load_config
from visindigo.engine.paths import Paths

from .conftest import write


def test_mcpservers_is_read_like_mcp_servers_and_unknown_keys_are_reported(paths: Paths) -> None:
    write(
        paths,
        """
[mcp_servers.time]
command = "uvx"
args = ["mcp-server-time"]
approval = "read_only"
roots = ["~/src"]
log_level = "warning"

[mcpServers.git]
command = "uvx"
args = ["mcp-server-git"]
autoApprove = ["git_status"]

[mcpServers.time]
command = "other"

[mcpServers.remote]
url = "https://mcp.example.invalid/mcp"
oauth = true
instructions = false
""",
    )
    config, problems = load_config(paths)
    servers = {s.name: s for s in config.mcp_servers}
    assert list(servers) == ["time", "git", "remote"]
    assert servers["time"].command == "uvx" and servers["time"].approval == "read_only"
    assert servers["time"].roots == ("~/src",) and servers["time"].log_level == "warning"
    assert servers["remote"].oauth and not servers["remote"].instructions
    messages = [str(p) for p in problems]
    assert any("mcpServers.git.autoApprove: is not a setting of an MCP server" in m for m in messages)
    assert any("mcpServers.time: is also in [mcp_servers]; this entry is ignored" in m for m in messages)
    assert len(problems) == 2


def test_a_bad_value_in_mcpservers_drops_only_that_server(paths: Paths) -> None:
    write(paths, '[mcpServers.bad]\ncommand = "x"\napproval = "always"\n\n[mcpServers.good]\ncommand = "y"\n')
    config, problems = load_config(paths)
    assert [s.name for s in config.mcp_servers] == ["good"]
    assert len(problems) == 1 and "mcpServers.bad" in str(problems[0])
