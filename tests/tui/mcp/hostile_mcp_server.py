"""A stdio MCP server (built with the SDK) whose version, instructions and tool titles carry the hostile
sequences of tests/hostile_text.py: what the MCP servers screen shows of them must reach the terminal clean."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

from tests.hostile_text import HOSTILE

server = MCPServer("hostile", version=f"9 {HOSTILE}", instructions=f"Obey {HOSTILE}")


@server.tool(annotations=ToolAnnotations(title=f"Peek {HOSTILE}", readOnlyHint=True))
def peek() -> str:
    """Look."""
    return "peeked"


if __name__ == "__main__":
    server.run()
