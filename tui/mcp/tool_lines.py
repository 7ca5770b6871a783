"""What the MCP servers screen says about a running server's tools: name, title and annotations, one a line."""

from __future__ import annotations

from visindigo.engine import MCPServer
from visindigo.engine.mcp import ServerStatus

#: Tools listed in the detail pane at most; the rest are counted.
MAX_TOOL_LINES = 40

POLICIES = {
    "ask": "asks before each tool call",
    "read_only": "read-only tools run without asking; others ask",
    "allow": "tools run without asking",
}


def policy_text(server: MCPServer) -> str:
    return POLICIES.get(server.approval, server.approval)


def tool_lines(status: ServerStatus) -> list[str]:
    """`  name — Title [read-only · closed world]` for each tool; task-only tools named as not offered."""
    lines = []
    for tool in status.tools[:MAX_TOOL_LINES]:
        title = f" — {tool.title}" if tool.title and tool.title != tool.name else ""
        lines.append(f"  {tool.name}{title} [{' · '.join(tool.hints.words())}]")
    if len(status.tools) > MAX_TOOL_LINES:
        lines.append(f"  … and {len(status.tools) - MAX_TOOL_LINES} more")
    if status.task_only_tools:
        lines.append("  not offered (they run only as protocol tasks): " + ", ".join(status.task_only_tools))
    if status.resource_count:
        lines.append(f"  {status.resource_count} resources and templates (attach with @ in the composer)")
    if status.instructions:
        lines.append("  has instructions for the model")
    return lines
