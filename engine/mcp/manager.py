"""The MCP manager: the Center's `ToolSource`, and what the UI asks about servers.

It keeps one connection per server config (a dialog's server of the same name but other settings is another
process), starts servers when a run first needs them (in parallel), reuses them across runs and dialogs,
restarts one after it crashed, and stops them all on `aclose`. Constructing it imports nothing of the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..function import Function
from ..mcp_server import MCPServer
from ..message import Message
from .connection import ServerConnection, fingerprint
from .naming import assign_function_ids
from .status import MCPPromptInfo, MCPServerError, ResourceInfo, ServerState, ServerStatus
from .tool import MCPToolFunction

if TYPE_CHECKING:
    from ..lookup import DialogHost, ToolSource
    from .host import MCPHost
    from .resources import ResourceContent

#: How long a server may take to start and answer its handshake (a `uvx` first run downloads packages).
DEFAULT_STARTUP_TIMEOUT = 60.0
#: A run re-reads the tool list of a server listed longer ago than this, unless the server announces its
#: changes (`listChanged`), which are then read at once instead.
DEFAULT_LIST_REFRESH = 30.0


class MCPManager:
    """Starts, reuses and stops MCP servers; turns their tools into functions and their prompts into messages.

    `log_dir` receives one log file per stdio server (`mcp-<name>.log`: its stderr and log notifications);
    without it, those are discarded — never shown on the screen either way.
    """

    def __init__(
        self,
        log_dir: Path | None = None,
        *,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        list_refresh: float = DEFAULT_LIST_REFRESH,
        host: MCPHost | None = None,
        center: DialogHost | None = None,
        credentials_file: Path | None = None,
    ) -> None:
        self.log_dir = log_dir
        #: Answers servers' elicitation and sampling requests; without one, neither is declared to servers.
        self.host = host
        #: Whose providers serve sampling when the request comes outside any dialog's tool call.
        self.center = center
        #: Where OAuth sign-ins keep their tokens (the credentials file); None: HTTP servers cannot sign in.
        self.credentials_file = credentials_file
        #: The first root offered to servers; None: the folder the app was started in.
        self.start_folder: str | None = None
        self.startup_timeout = startup_timeout
        self.list_refresh = list_refresh
        self._connections: dict[tuple[str, str], ServerConnection] = {}
        #: The config most recently used under each name: what `status(name)` and `restart(name)` refer to.
        self._latest: dict[str, tuple[str, str]] = {}
        self._closed = False
        self._background: set[asyncio.Task[None]] = set()

    # --- connections --------------------------------------------------------------------------------------

    def _connection(self, server: MCPServer) -> ServerConnection:
        if self._closed:
            message = f"MCP server {server.name!r} was not started: the app is shutting down"
            raise MCPServerError(message, server=server.name)
        key = (server.name, fingerprint(server))
        connection = self._connections.get(key)
        if connection is None:
            connection = ServerConnection(
                server,
                log_dir=self.log_dir,
                startup_timeout=self.startup_timeout,
                list_refresh=self.list_refresh,
                host=self.host,
                center=self.center,
                credentials_file=self.credentials_file,
            )
            connection.client_side.start_folder = self.start_folder
            self._connections[key] = connection
        previous = self._latest.get(server.name)
        self._latest[server.name] = key
        if previous is not None and previous != key:
            self._retire(server.name, keep=key)
        return connection

    def _retire(self, name: str, *, keep: tuple[str, str]) -> None:
        """Stop idle processes of an older config of `name` (its settings were edited); busy ones finish first."""
        for key, connection in self._connections.items():
            if key[0] == name and key != keep and connection.in_flight == 0 and connection.is_running:
                task = asyncio.get_running_loop().create_task(connection.stop())
                self._background.add(task)
                task.add_done_callback(self._background.discard)

    async def _start_all(self, servers: Iterable[MCPServer]) -> tuple[list[ServerConnection], list[str]]:
        """Start the enabled servers in parallel; return the running connections and the failure messages."""
        connections: list[ServerConnection] = []
        seen: set[str] = set()
        for server in servers:
            if server.enabled and server.name not in seen:
                seen.add(server.name)
                connections.append(self._connection(server))
        outcomes = await asyncio.gather(
            *(c.ensure_running(fresh_lists=True) for c in connections), return_exceptions=True
        )
        running: list[ServerConnection] = []
        failures: list[str] = []
        for connection, outcome in zip(connections, outcomes, strict=True):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                if isinstance(outcome, MCPServerError):
                    failures.append(str(outcome))
                else:
                    failures.append(connection.error or f"MCP server {connection.name!r}: {outcome!r}")
            else:
                running.append(connection)
        return running, failures

    # --- ToolSource ---------------------------------------------------------------------------------------

    async def functions_for(self, servers: list[MCPServer]) -> list[Function]:
        """The tools of `servers` (disabled ones skipped) as functions, starting servers as needed.

        Raises `MCPServerError` when a server cannot be started — the run then fails with that message (which
        names the server and the reason) instead of going on without tools the user configured.
        """
        running, failures = await self._start_all(servers)
        if failures:
            hint = " (fix it, or disable the server, to run this dialog)" if len(failures) == 1 else ""
            raise MCPServerError("; ".join(failures) + hint)
        pairs = [(connection, tool) for connection in running for tool in connection.tools]
        ids = assign_function_ids((connection.name, tool.name) for connection, tool in pairs)
        return [MCPToolFunction(connection, tool, fid) for (connection, tool), fid in zip(pairs, ids, strict=True)]

    async def aclose(self) -> None:
        """Stop every server and wait until each is gone; no new server starts afterwards."""
        self._closed = True
        await asyncio.gather(*self._background, return_exceptions=True)
        await asyncio.gather(*(c.stop() for c in self._connections.values()), return_exceptions=True)

    # --- for the UI ---------------------------------------------------------------------------------------

    def status(self, name: str) -> ServerStatus:
        """How the server of that name is doing (its most recently used config); stopped if never started."""
        key = self._latest.get(name)
        connection = self._connections.get(key) if key is not None else None
        return connection.status() if connection is not None else ServerStatus(name=name)

    def statuses(self) -> list[ServerStatus]:
        return [self.status(name) for name in self._latest]

    async def start(self, servers: Iterable[MCPServer]) -> list[ServerStatus]:
        """Start these servers now (for `start_on_launch`); failures are recorded in their status, not raised."""
        connections = [self._connection(s) for s in servers if s.enabled]
        await asyncio.gather(*(c.ensure_running() for c in connections), return_exceptions=True)
        return [c.status() for c in connections]

    async def start_on_launch(self, servers: Iterable[MCPServer]) -> list[ServerStatus]:
        """Start the enabled servers configured to start with the app."""
        return await self.start(s for s in servers if s.start_on_launch)

    async def stop(self, name: str) -> None:
        """Stop every process of the server of that name (they start again when next used)."""
        await asyncio.gather(*(c.stop() for key, c in self._connections.items() if key[0] == name))

    async def restart(self, server: MCPServer | str) -> ServerStatus:
        """Stop and start a server again (a config, or the name of one used before); returns its new status."""
        if isinstance(server, str):
            key = self._latest.get(server)
            if key is None or key not in self._connections:
                return ServerStatus(server, ServerState.STOPPED, error=f"MCP server {server!r} was never started")
            server = self._connections[key].server
        await self.stop(server.name)
        connection = self._connection(server)
        with contextlib.suppress(MCPServerError):  # the reason is in the status
            await connection.ensure_running()
        return connection.status()

    async def list_prompts(self, servers: list[MCPServer]) -> list[MCPPromptInfo]:
        """Every prompt of these servers, for the template picker; a server that cannot start is left out."""
        running, _failures = await self._start_all(servers)
        return [prompt for connection in running for prompt in connection.prompts]

    async def get_prompt(self, server: MCPServer, prompt_name: str, arguments: dict[str, str]) -> list[Message]:
        """Ask the server for its prompt filled with `arguments`; messages named `server/prompt`.

        Raises `MCPServerError` (server unreachable, or it refused: a missing argument, an unknown prompt).
        """
        return await self._connection(server).get_prompt(prompt_name, dict(arguments))


    # --- resources, completions, instructions ---------------------------------------------------------------

    async def list_resources(self, servers: list[MCPServer]) -> list[ResourceInfo]:
        """Every resource and resource template of these servers (a server that cannot start is left out)."""
        running, _failures = await self._start_all(servers)
        return [resource for connection in running for resource in connection.resources]

    async def read_resource(self, server: MCPServer, uri: str) -> ResourceContent:
        from .resources import read

        return await read(self._connection(server), uri)

    async def subscribe_resource(self, server: MCPServer, uri: str, listener: Callable[[str], None]) -> bool:
        """`listener(uri)` on each `resources/updated` for `uri`; False when the server offers no subscriptions."""
        from .resources import subscribe

        connection = self._connection(server)
        await connection.ensure_running()
        return await subscribe(connection, uri, listener)

    async def complete(
        self, server: MCPServer, kind: str, name: str, argument: str, value: str, context: dict[str, str] | None = None
    ) -> list[str]:
        """Suggestions for an argument of a prompt (`kind="prompt"`) or resource template (`"resource"`)."""
        from .resources import complete

        connection = self._connection(server)
        try:
            await connection.ensure_running()
        except MCPServerError:
            return []
        return await complete(connection, kind, name, argument, value, context or {})

    def instructions_for(self, servers: Iterable[MCPServer]) -> list[tuple[str, str]]:
        """(server, instructions) of the running servers whose `instructions` setting is on."""
        found = []
        for server in servers:
            key = (server.name, fingerprint(server))
            connection = self._connections.get(key)
            if server.instructions and connection is not None and connection.instructions.strip():
                found.append((server.name, connection.instructions.strip()))
        return found

    async def sign_in(self, server: MCPServer) -> ServerStatus:
        """Start (again) an HTTP server with OAuth: the sign-in page is shown by the host."""
        await self.stop(server.name)
        connection = self._connection(server)
        connection.sign_in_requested = True
        with contextlib.suppress(MCPServerError):  # the reason is in the status
            await connection.ensure_running()
        return connection.status()

    async def sign_out(self, server: MCPServer) -> None:
        """Forget the server's OAuth tokens and registration, and stop it."""
        await self.stop(server.name)
        if self.credentials_file is not None:
            from .oauth import CredentialsTokenStorage

            CredentialsTokenStorage(self.credentials_file, server).forget()
        connection = self._connection(server)
        connection.sign_in_requested = False

    async def set_start_folder(self, folder: str) -> None:
        """Offer `folder` as the first root from now on and tell running servers the roots changed."""
        self.start_folder = folder
        for connection in self._connections.values():
            connection.client_side.start_folder = folder
        await asyncio.gather(*(c.roots_changed() for c in self._connections.values()), return_exceptions=True)


def tool_source_for(center: DialogHost) -> ToolSource:
    """The Center's tool source, made on first need when nobody installed one.

    A script that only calls `center.add_mcp(...)`, or a dialog that brings its own server, must get that
    server's tools rather than have them silently left out. The manager logs to `<data folder>/logs` as in the
    app, and `center.aclose()` stops its servers.
    """
    if center.tool_source is None:
        log_dir = center.paths.data_dir / "logs" if center.paths is not None else None
        credentials = center.paths.credentials_file if center.paths is not None else None
        center.tool_source = MCPManager(log_dir, center=center, credentials_file=credentials)
    return center.tool_source
