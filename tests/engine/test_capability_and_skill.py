"""Capability flags, skills and MCP server configuration values."""

import pytest

from visindigo.engine import Capability, MCPServer, Skill


def test_capabilities_combine_and_parse_by_name() -> None:
    required = Capability.TEXT | Capability.IMAGE
    assert Capability.IMAGE in required
    assert Capability.TOOLS not in required
    assert Capability.from_names(["text", "Image"]) == required
    assert required.names() == ["text", "image"]
    assert (Capability.TEXT | Capability.TOOLS | Capability.REASONING).marks() == "TFR"


def test_unknown_capability_names_are_reported() -> None:
    with pytest.raises(ValueError, match="'telepathy'"):
        Capability.from_names(["text", "telepathy"])


def test_skill_round_trips_through_json() -> None:
    skill = Skill("terse", "Answer in one sentence.", description="short answers")
    assert Skill.from_json(skill.to_json()) == skill


def test_mcp_server_from_a_claude_desktop_document() -> None:
    document = {
        "mcpServers": {
            "time": {
                "command": "uvx",
                "args": ["mcp-server-time", "--local-timezone=Europe/Berlin"],
                "env": {"K": "V"},
            },
            "remote": {"url": "https://example.invalid/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "legacy": {"type": "sse", "url": "http://127.0.0.1:9/sse", "disabled": True},
        }
    }
    time, remote, legacy = MCPServer.from_mcp_servers_json(document)
    assert (time.name, time.kind, time.args, dict(time.env)) == (
        "time",
        "stdio",
        ("mcp-server-time", "--local-timezone=Europe/Berlin"),
        {"K": "V"},
    )
    assert remote.kind == "http"
    assert remote.headers["Authorization"] == "Bearer ${TOKEN}"  # references are kept, never expanded here
    assert legacy.kind == "sse" and legacy.enabled is False


def test_mcp_server_round_trips_and_rejects_entries_without_a_way_to_reach_it() -> None:
    server = MCPServer("git", command="mcp-server-git", args=("-r", "/tmp/repo"), approval="allow", timeout=5)
    assert MCPServer.from_json(server.to_json()) == server
    with pytest.raises(ValueError, match=r"'broken'.*command"):
        MCPServer.from_json({"args": []}, name="broken")
    with pytest.raises(ValueError, match="unknown type"):
        MCPServer.from_json({"command": "x", "type": "carrier-pigeon"}, name="odd")
