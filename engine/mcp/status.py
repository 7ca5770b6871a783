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
    #: Tools listed as `server tool [hints]` lines for the MCP screen (names, titles and annotations).
    tools: tuple[ToolInfo, ...] = ()
    #: Tools left out because they can only run as protocol tasks (`execution.taskSupport: "required"`).
    task_only_tools: tuple[str, ...] = ()
    resource_count: int = 0
    #: The server's `instructions` from its handshake ("" when it gave none).
    instructions: str = ""


@dataclass(frozen=True, slots=True)
class ToolHints:
    """A tool's annotations (MCP `ToolAnnotations`): hints, never guarantees — a server may lie.

    The spec's defaults apply when a hint is absent: not read-only, destructive, not idempotent, open-world.
    """

    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    open_world: bool = True
    title: str = ""

    @property
    def safe_to_allow(self) -> bool:
        """Read-only and not marked destructive: what `approval = "read_only"` runs without asking."""
        return self.read_only and not self.destructive

    def words(self) -> list[str]:
        """Short labels for the approval modal and the MCP screen."""
        labels = ["read-only" if self.read_only else ("destructive" if self.destructive else "writes")]
        if self.idempotent:
            labels.append("idempotent")
        labels.append("open world" if self.open_world else "closed world")
        return labels


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One tool as the server listed it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str = ""
    hints: ToolHints = field(default_factory=ToolHints)
    #: JSON Schema of the tool's `structuredContent`; None when it declares none.
    output_schema: dict[str, Any] | None = None


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


@dataclass(frozen=True, slots=True)
class ResourceInfo:
    """A resource a server lists (`resources/list`) or a template it offers (`resources/templates/list`)."""

    server: str
    uri: str
    name: str
    title: str = ""
    description: str = ""
    mime_type: str = ""
    #: An RFC 6570 template (`file:///{path}`) instead of a fixed URI: its variables are filled in a form.
    template: bool = False

    @property
    def label(self) -> str:
        return self.title or self.name or self.uri


class MCPServerError(RuntimeError):
    """An MCP server could not be started or reached, or refused a request; the message says which and why."""

    def __init__(self, message: str, *, server: str = "") -> None:
        super().__init__(message)
        self.server = server
