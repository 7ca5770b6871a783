"""The form that adds or edits one MCP server (stdio command, or HTTP/SSE URL).

Environment variables and headers are written shell-style, `NAME=value` separated by spaces (quote values
with spaces). A value that looks like a secret and is not a `${VAR}` reference is never shown back: it appears
as `NAME=<kept>`, and saving `<kept>` keeps the stored value.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection, Mapping

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Checkbox, Input, Select, Static

from visindigo.engine.mcp_server import MCPServer
from visindigo.tui.common.modal import FORM_CSS, FormFrame, field_row

KEPT = "<kept>"
TRANSPORTS: list[tuple[str, str]] = [
    ("stdio (a command)", "stdio"),
    ("Streamable HTTP", "http"),
    ("SSE (legacy)", "sse"),
]
APPROVALS: list[tuple[str, str]] = [("Ask before each tool call", "ask"), ("Allow without asking", "allow")]
_SECRET_NAME = re.compile(r"key|token|secret|passw|auth|credential|cookie|session", re.IGNORECASE)


def looks_secret(name: str, value: str) -> bool:
    """Whether a value must not be shown: not a `${VAR}` reference, and a secret-ish name or a long value."""
    if "${" in value:
        return False
    return bool(_SECRET_NAME.search(name)) or len(value) >= 24


def format_pairs(pairs: Mapping[str, str]) -> str:
    """`NAME=value` words for the form, secrets replaced by `<kept>`."""
    return " ".join(
        shlex.quote(f"{name}={KEPT if looks_secret(name, value) else value}") for name, value in pairs.items()
    )


def parse_pairs(text: str, old: Mapping[str, str], what: str) -> dict[str, str]:
    """Parse `NAME=value` words; `<kept>` takes the old value. ValueError says what is wrong (never a value)."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"{what}: {error} (check the quotes)") from None
    pairs: dict[str, str] = {}
    for position, word in enumerate(words, 1):
        name, sep, value = word.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"{what}: entry {position} is not NAME=value")
        name = name.strip()
        if value == KEPT:
            if name not in old:
                raise ValueError(f"{what}: {name} has no stored value to keep; type the value")
            value = old[name]
        pairs[name] = value
    return pairs


class MCPServerFormScreen(FormFrame[MCPServer | None]):
    """Add (`server=None`) or edit an MCP server. Ctrl+S saves; Esc cancels; problems are named, nothing lost."""

    DEFAULT_CSS = (
        FORM_CSS
        + """
    MCPServerFormScreen > .frame {
        width: 90;
        padding: 1 1 0 1;
    }
    MCPServerFormScreen #error {
        margin-top: 1;
        height: auto;
    }
    """
    )

    def __init__(self, server: MCPServer | None = None, *, taken_names: Collection[str] = ()) -> None:
        super().__init__()
        self._old = server
        self._taken = set(taken_names) - ({server.name} if server else set())

    def compose(self) -> ComposeResult:
        old = self._old
        with Vertical(classes="frame") as frame:
            frame.border_title = "Edit MCP server" if old else "Add an MCP server"
            frame.border_subtitle = "tab next field · ctrl+s save · esc cancel"
            yield from field_row(
                "Name", Input(old.name if old else "", id="name", compact=True, max_length=64, placeholder="e.g. time")
            )
            yield from field_row(
                "Transport",
                Select(TRANSPORTS, value=old.kind if old else "stdio", allow_blank=False, id="transport", compact=True),
            )
            yield from field_row(
                "Command", Input(old.command if old else "", id="command", compact=True, placeholder="e.g. uvx (stdio)")
            )
            yield from field_row(
                "Arguments",
                Input(
                    shlex.join(old.args) if old else "",
                    id="args",
                    compact=True,
                    placeholder="e.g. mcp-server-time --local-timezone UTC",
                ),
            )
            yield from field_row(
                "Environment",
                Input(
                    format_pairs(old.env) if old else "",
                    id="env",
                    compact=True,
                    placeholder="NAME=value NAME2=${VAR} (optional)",
                ),
            )
            yield from field_row(
                "URL",
                Input(old.url if old else "", id="url", compact=True, placeholder="https://host/mcp (HTTP or SSE)"),
            )
            yield from field_row(
                "Headers",
                Input(
                    format_pairs(old.headers) if old else "",
                    id="headers",
                    compact=True,
                    placeholder="Authorization='Bearer ${TOKEN}'",
                ),
            )
            yield from field_row(
                "Tool calls",
                Select(APPROVALS, value=old.approval if old else "ask", allow_blank=False, id="approval", compact=True),
            )
            yield from field_row(
                "Timeout (s)", Input(f"{old.timeout:g}" if old else "30", id="timeout", compact=True, type="number")
            )
            yield from field_row("", Checkbox("Enabled", old.enabled if old else True, id="enabled", compact=True))
            yield from field_row(
                "",
                Checkbox(
                    "Start with the app", old.start_on_launch if old else False, id="start_on_launch", compact=True
                ),
            )
            yield Static("", id="error", classes="error")
            yield from self.save_and_cancel()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    def _text(self, selector: str) -> str:
        return self.query_one(selector, Input).value.strip()

    def build(self) -> MCPServer:
        """The server the form describes; ValueError names every problem (in field order)."""
        problems: list[str] = []
        name = self._text("#name")
        if not name:
            problems.append("a server needs a name")
        elif any(ord(ch) < 32 for ch in name):
            problems.append("the name must be plain text")
        elif name in self._taken:
            problems.append(f"there is a server called {name!r} already")
        transport = str(self.query_one("#transport", Select).value)
        command, url = self._text("#command"), self._text("#url")
        if transport == "stdio" and not command:
            problems.append("a stdio server needs a command")
        if transport != "stdio" and not re.match(r"^https?://\S+$", url):
            problems.append("an HTTP or SSE server needs a URL starting with http:// or https://")
        args: list[str] = []
        try:
            args = shlex.split(self._text("#args"))
        except ValueError as error:
            problems.append(f"arguments: {error} (check the quotes)")
        env: dict[str, str] = {}
        headers: dict[str, str] = {}
        try:
            env = parse_pairs(self._text("#env"), self._old.env if self._old else {}, "environment")
        except ValueError as error:
            problems.append(str(error))
        try:
            headers = parse_pairs(self._text("#headers"), self._old.headers if self._old else {}, "headers")
        except ValueError as error:
            problems.append(str(error))
        try:
            timeout = float(self._text("#timeout") or "30")
            if timeout <= 0:
                raise ValueError
        except ValueError:
            problems.append("the timeout must be a number of seconds above 0")
            timeout = 30.0
        if problems:
            raise ValueError("; ".join(problems))
        entry = {
            "command": command if transport == "stdio" else "",
            "args": args if transport == "stdio" else [],
            "env": env if transport == "stdio" else {},
            "url": url if transport != "stdio" else "",
            "headers": headers if transport != "stdio" else {},
            "type": "sse" if transport == "sse" else None,  # stdio and http follow from command / url
            "enabled": self.query_one("#enabled", Checkbox).value,
            "timeout": timeout,
            "approval": str(self.query_one("#approval", Select).value),
            "start_on_launch": self.query_one("#start_on_launch", Checkbox).value,
        }
        server = MCPServer.from_json(entry, name=name)
        if self._old is not None and self._old.cwd:
            server = MCPServer.from_json({**server.to_json(), "cwd": self._old.cwd}, name=name)
        return server

    def action_save(self) -> None:
        try:
            server = self.build()
        except ValueError as error:
            self.query_one("#error", Static).update(Content(f"Cannot save: {error}."))
            return
        self.dismiss(server)
