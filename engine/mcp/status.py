"""Plain values the MCP manager hands to the rest of the app: no SDK types leak past engine/mcp.

The UI shows `ServerStatus`; the template form is built from `MCPPromptInfo`; `MCPServerError` is the one
exception the manager raises, always with a message a user can act on (which server, what went wrong, where
its log is) and never with a secret in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class ServerState(Enum):
    STOPPED = "stopped"
    STARTING = "starting"
    RUNNING = "running"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """What the MCP servers screen shows for one server."""

    name: str
    state: ServerState = ServerState.STOPPED
    #: Why it failed (or stopped unexpectedly); "" when all is well.
    error: str = ""
    tool_count: int = 0
    prompt_count: int = 0
    #: Where its stderr (stdio) and log notifications go; None when logs are discarded or for HTTP servers.
    log_path: str | None = None
    transport: str = ""
    protocol_version: str = ""
    server_version: str = ""


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as the server listed it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str = ""


@dataclass(frozen=True, slots=True)
class PromptArgument:
    """One argument of a server prompt; MCP prompt arguments are always strings."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True, slots=True)
class MCPPromptInfo:
    """A server prompt, offered next to the local templates."""

    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArgument, ...] = field(default_factory=tuple)
    title: str = ""

    @property
    def label(self) -> str:
        """`server/prompt`: the name its messages get in a dialog."""
        return f"{self.server}/{self.name}"

    def missing_arguments(self, values: dict[str, str]) -> list[str]:
        """Required arguments left empty in `values` (the form checks this before asking the server)."""
        return [a.name for a in self.arguments if a.required and not values.get(a.name, "").strip()]


class MCPServerError(RuntimeError):
    """An MCP server could not be started or reached, or refused a request; the message says which and why."""

    def __init__(self, message: str, *, server: str = "") -> None:
        super().__init__(message)
        self.server = server
