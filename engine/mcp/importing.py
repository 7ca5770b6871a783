"""Reading MCP server lists that users already have: Claude Desktop, Cursor, Claude Code, VS Code.

All of them are JSON with a map of server name to settings (`mcpServers`, or `servers` in VS Code); the
entries are read by `MCPServer.from_json`. Values are taken as written: `${VAR}` references stay references
and are expanded only when a server starts.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from ..mcp_server import MCPServer


def claude_desktop_config_path() -> Path:
    """Where Claude Desktop keeps `claude_desktop_config.json` on this platform (the file may not exist)."""
    home = Path.home()
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / "Claude" / "claude_desktop_config.json"
    return Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "Claude" / "claude_desktop_config.json"


def load_mcp_servers_file(path: str | os.PathLike[str]) -> list[MCPServer]:
    """Every server in a config file; a ValueError names the file and what is wrong (nothing is half-read)."""
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{file}: cannot be read (no such file)") from None
    except OSError as error:
        raise ValueError(f"{file}: cannot be read ({error.strerror or error})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{file}: not valid JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    return mcp_servers_from_document(document, str(file))


def mcp_servers_from_document(document: object, origin: str) -> list[MCPServer]:
    """Every server of a parsed `mcpServers` document; a ValueError starts with `origin` (a file name)."""
    if not isinstance(document, Mapping):
        raise ValueError(f"{origin}: expected a JSON object with 'mcpServers'")
    try:
        return MCPServer.from_mcp_servers_json(document)
    except ValueError as error:
        raise ValueError(f"{origin}: {error}") from None
