"""MCP server configuration (`MCP` in the spec): a value saved with a dialog or with the Center.

Values may hold `${VAR}` / `${VAR:-default}` references; they are stored as written and expanded only when a
server is started, so a secret in the environment never lands in a dialog or an exported file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Literal

from .record import record

Transport = Literal["stdio", "http", "sse"]
ApprovalPolicy = Literal["ask", "read_only", "allow"]
LogLevel = Literal["", "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

#: Every key a server entry may have (others are reported as unknown; `name` comes from the table name).
KNOWN_KEYS = frozenset(
    {"name", "command", "args", "env", "cwd", "url", "serverUrl", "headers", "type", "transport", "disabled",
     "enabled", "timeout", "approval", "start_on_launch", "roots", "instructions", "log_level", "oauth",
     "protocol"}
)


@record(frozen=True, slots=True)
class MCPServer:
    """How to reach one MCP server.

    `command` (+ `args`, `env`, `cwd`) means stdio; `url` (+ `headers`) means Streamable HTTP, or legacy SSE
    when `transport` says so. `approval` is "ask" by default: a tool from a server runs only after the user
    allows it; "read_only" runs tools the server marks read-only (and not destructive) without asking.
    `roots` are folders offered to the server besides the one the app started in; `instructions` passes the
    server's handshake instructions to the model; `log_level` is the least severe log message it should send;
    `oauth` signs in to an HTTP server with OAuth (also done whenever tokens for it are stored); `protocol` is
    "handshake" (`initialize`, what every server speaks) or "auto" (2026-07-28 when the server offers it).
    """

    name: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    transport: Transport | None = None
    enabled: bool = True
    timeout: float = 30.0
    approval: ApprovalPolicy = "ask"
    start_on_launch: bool = False
    roots: tuple[str, ...] = ()
    instructions: bool = True
    log_level: LogLevel = ""
    oauth: bool = False
    protocol: Literal["handshake", "auto"] = "handshake"

    @property
    def kind(self) -> Transport:
        """The transport in use: as configured, otherwise stdio for a command and http for a URL."""
        if self.transport:
            return self.transport
        return "stdio" if self.command else "http"

    def __repr__(self) -> str:
        """Names only for env and headers: configs pasted from other apps often hold tokens as literal values,
        and a repr ends up in tracebacks (Textual prints the locals of a crash) and logs."""
        parts = [repr(self.name), f"kind={self.kind!r}"]
        parts.append(f"command={self.command!r}, args={list(self.args)!r}" if self.command else f"url={self.url!r}")
        if self.env:
            parts.append(f"env=[{', '.join(self.env)}]")
        if self.headers:
            parts.append(f"headers=[{', '.join(self.headers)}]")
        return f"MCPServer({', '.join(parts)})"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        if self.command:
            data["command"] = self.command
        if self.args:
            data["args"] = list(self.args)
        if self.env:
            data["env"] = dict(self.env)
        if self.cwd:
            data["cwd"] = self.cwd
        if self.url:
            data["url"] = self.url
        if self.headers:
            data["headers"] = dict(self.headers)
        if self.transport:
            data["type"] = self.transport
        if not self.enabled:
            data["disabled"] = True
        if self.timeout != 30.0:
            data["timeout"] = self.timeout
        if self.approval != "ask":
            data["approval"] = self.approval
        if self.start_on_launch:
            data["start_on_launch"] = True
        if self.roots:
            data["roots"] = list(self.roots)
        if not self.instructions:
            data["instructions"] = False
        if self.log_level:
            data["log_level"] = self.log_level
        if self.oauth:
            data["oauth"] = True
        if self.protocol != "handshake":
            data["protocol"] = self.protocol
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], name: str | None = None) -> MCPServer:
        """Read one entry, ours or a Claude-Desktop / Cursor / VS Code style one.

        Raises ValueError with the server's name when the entry has neither a command nor a URL.
        """
        server_name = str(name if name is not None else data.get("name", "")).strip()
        if not server_name:
            raise ValueError("an MCP server needs a name")
        url = str(data.get("url") or data.get("serverUrl") or "")
        command = str(data.get("command") or "")
        if not command and not url:
            raise ValueError(f"MCP server {server_name!r} needs a 'command' (stdio) or a 'url' (HTTP)")
        transport_raw = str(data.get("type") or data.get("transport") or "").lower() or None
        transport: Transport | None
        if transport_raw in (None, ""):
            transport = None
        elif transport_raw in ("stdio",):
            transport = "stdio"
        elif transport_raw in ("http", "streamable-http", "streamable_http", "streamablehttp"):
            transport = "http"
        elif transport_raw == "sse":
            transport = "sse"
        else:
            raise ValueError(f"MCP server {server_name!r}: unknown type {transport_raw!r} (stdio, http or sse)")
        args = data.get("args") or []
        if not isinstance(args, list | tuple):
            raise ValueError(f"MCP server {server_name!r}: 'args' must be a list of strings")
        env = _string_map(data.get("env"), server_name, "env")
        headers = _string_map(data.get("headers"), server_name, "headers")
        approval = str(data.get("approval", "ask"))
        if approval not in ("ask", "read_only", "allow"):
            raise ValueError(f"MCP server {server_name!r}: 'approval' must be 'ask', 'read_only' or 'allow'")
        roots = data.get("roots") or []
        if not isinstance(roots, list | tuple):
            raise ValueError(f"MCP server {server_name!r}: 'roots' must be a list of folders")
        protocol = str(data.get("protocol") or "handshake")
        if protocol not in ("handshake", "auto"):
            raise ValueError(f"MCP server {server_name!r}: 'protocol' must be 'handshake' or 'auto'")
        log_level = str(data.get("log_level") or "").lower()
        if log_level and log_level not in LOG_LEVELS:
            raise ValueError(f"MCP server {server_name!r}: 'log_level' must be one of {', '.join(LOG_LEVELS)}")
        try:
            timeout = float(data.get("timeout", 30.0))
        except (TypeError, ValueError):
            raise ValueError(f"MCP server {server_name!r}: 'timeout' must be a number of seconds") from None
        return cls(
            name=server_name,
            command=command,
            args=tuple(str(a) for a in args),
            env=env,
            cwd=str(data.get("cwd") or ""),
            url=url,
            headers=headers,
            transport=transport,
            enabled=not bool(data.get("disabled", False)) and bool(data.get("enabled", True)),
            timeout=timeout,
            approval="allow" if approval == "allow" else "read_only" if approval == "read_only" else "ask",
            start_on_launch=bool(data.get("start_on_launch", False)),
            roots=tuple(str(r) for r in roots),
            instructions=bool(data.get("instructions", True)),
            log_level=log_level,  # type: ignore[arg-type]  # checked against LOG_LEVELS above
            oauth=bool(data.get("oauth", False)),
            protocol="auto" if protocol == "auto" else "handshake",
        )

    @staticmethod
    def unknown_keys(data: Mapping[str, Any]) -> list[str]:
        """Keys of an entry this client does not read (a typo, or another client's setting)."""
        return sorted(str(key) for key in data if key not in KNOWN_KEYS)

    @classmethod
    def from_mcp_servers_json(cls, document: Mapping[str, Any]) -> list[MCPServer]:
        """Every server of a Claude-Desktop style document (`mcpServers`, or VS Code's `servers`).

        Accepts the whole file or just the inner map of name -> entry.
        """
        servers = document.get("mcpServers", document.get("servers", document))
        if not isinstance(servers, Mapping):
            raise ValueError("expected an object 'mcpServers' mapping server names to their settings")
        result = []
        for server_name, entry in servers.items():
            if not isinstance(entry, Mapping):
                raise ValueError(f"MCP server {server_name!r}: expected an object")
            result.append(cls.from_json(entry, name=str(server_name)))
        return result


def _string_map(value: object, server: str, key: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"MCP server {server!r}: {key!r} must be an object of strings")
    return {str(k): str(v) for k, v in value.items()}
