"""What the MCP servers screen asks of the MCP manager: `r` restarts the selected server, `o` signs in to an HTTP
server with OAuth, `O` signs out, and a server edited, disabled or removed is stopped.

The screen keeps the list and its keys; this keeps the manager's side, each call in a worker of the screen, and
tells the screen what happened through `ServersView`. The sign-in page itself is shown by the app's MCP host
(`tui.mcp.host`), because the same page also appears when a run starts a server that needs it.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol, runtime_checkable

from textual.dom import DOMNode

from visindigo.engine.mcp.status import ServerState, ServerStatus
from visindigo.engine.mcp_server import MCPServer


@runtime_checkable
class ServerControl(Protocol):
    """What the screen needs of the MCP manager (`engine.mcp.MCPManager` is one)."""

    def status(self, name: str) -> ServerStatus: ...

    async def restart(self, server: MCPServer | str) -> ServerStatus: ...

    async def stop(self, name: str) -> None: ...


@runtime_checkable
class SigningIn(Protocol):
    """A manager that can sign in to HTTP servers (the `MCPManager`; a test's stand-in may not)."""

    async def sign_in(self, server: MCPServer) -> ServerStatus: ...

    async def sign_out(self, server: MCPServer) -> None: ...


class ServersView(Protocol):
    """What the manager's side tells the screen (`MCPServersScreen`)."""

    #: Servers being started or signed in to (shown as "restarting").
    busy: set[str]

    def selected(self) -> MCPServer | None: ...
    def show_status(self, text: str, *, error: bool = False) -> None: ...
    def refresh_states(self) -> None: ...


class ManagerActions:
    """Restart, stop, sign in and out, in workers of `node` (the screen), told to `view` (the same screen)."""

    def __init__(self, node: DOMNode, view: ServersView, manager: ServerControl | None) -> None:
        self.node = node
        self.view = view
        self.manager = manager

    def _run(self, work: Coroutine[Any, Any, None], group: str) -> None:
        self.node.run_worker(work, group=group, exit_on_error=False)

    def restart_selected(self) -> None:
        server = self.view.selected()
        if server is None:
            return
        if self.manager is None:
            self.view.show_status("MCP support is not running in this session.", error=True)
            return
        if not server.enabled:
            self.view.show_status(f"{server.name!r} is disabled; press space to enable it first.", error=True)
            return
        self._run(self._restart(self.manager, server), "mcp-restart")

    async def _restart(self, manager: ServerControl, server: MCPServer) -> None:
        view = self.view
        view.busy.add(server.name)
        view.refresh_states()
        view.show_status(f"Starting {server.name!r}…")
        try:
            status = await manager.restart(server)
        except Exception as error:  # the manager reports failures in the status; this is a last resort
            view.show_status(f"{server.name!r} could not be restarted: {type(error).__name__}", error=True)
            return
        finally:
            view.busy.discard(server.name)
            view.refresh_states()
        if status.state is ServerState.RUNNING:
            view.show_status(f"{server.name!r} is running with {status.tool_count} tools.")
        else:
            view.show_status(f"{server.name!r}: {status.error or status.state.value}", error=True)

    def stop(self, name: str) -> None:
        """Stop the server `name` if there is a manager (its settings changed, or it was disabled or removed)."""
        if self.manager is not None:
            self._run(self._stop(self.manager, name), "mcp-stop")

    async def _stop(self, manager: ServerControl, name: str) -> None:
        await manager.stop(name)
        self.view.refresh_states()

    def _http_server(self) -> tuple[MCPServer, SigningIn] | None:
        server = self.view.selected()
        if server is None:
            return None
        if server.kind == "stdio":
            self.view.show_status(
                f"{server.name!r} runs on this machine (stdio); only HTTP servers sign in.", error=True
            )
            return None
        if not isinstance(self.manager, SigningIn):
            self.view.show_status("MCP support is not running in this session.", error=True)
            return None
        return server, self.manager

    def sign_in_selected(self) -> None:
        found = self._http_server()
        if found is not None:
            self._run(self._sign_in(*found), "mcp-sign-in")

    def sign_out_selected(self) -> None:
        found = self._http_server()
        if found is not None:
            self._run(self._sign_out(*found), "mcp-sign-in")

    async def _sign_in(self, server: MCPServer, manager: SigningIn) -> None:
        view = self.view
        view.busy.add(server.name)
        view.refresh_states()
        view.show_status(f"Signing in to {server.name!r}: the page to open is shown next…")
        try:
            status = await manager.sign_in(server)
        finally:
            view.busy.discard(server.name)
            view.refresh_states()
        if status.state is ServerState.RUNNING:
            view.show_status(f"Signed in to {server.name!r}; it runs with {status.tool_count} tools.")
        else:
            view.show_status(f"{server.name!r}: {status.error or status.state.value}", error=True)

    async def _sign_out(self, server: MCPServer, manager: SigningIn) -> None:
        await manager.sign_out(server)
        self.view.refresh_states()
        self.view.show_status(f"Signed out of {server.name!r}: its tokens were removed from the credentials file.")
