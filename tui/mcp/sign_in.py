"""The MCP servers screen's sign-in keys: `o` signs in to the selected HTTP server with OAuth, `O` signs out.

A part of `MCPServersScreen` (kept apart so that screen stays small); the sign-in page itself is shown by the
app's MCP host (`tui.mcp_host`), because the same page also appears when a run starts a server that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from visindigo.engine.mcp import ServerState

if TYPE_CHECKING:
    from visindigo.engine import MCPServer


class SignInActions:
    """A mixin placed after the screen's own base (Textual reads CSS types along the first base only).

    Needs `_selected()`, `_manager`, `_status()`, `_busy` and `_refresh_states()` from the screen.
    """

    if TYPE_CHECKING:
        _manager: Any
        _busy: set[str]

        def _selected(self) -> MCPServer | None: ...
        def _status(self, text: str, *, error: bool = False) -> None: ...
        def _refresh_states(self) -> None: ...

    def _http_server(self) -> MCPServer | None:
        server = self._selected()
        if server is None:
            return None
        if server.kind == "stdio":
            self._status(f"{server.name!r} runs on this machine (stdio); only HTTP servers sign in.", error=True)
            return None
        if self._manager is None or not hasattr(self._manager, "sign_in"):
            self._status("MCP support is not running in this session.", error=True)
            return None
        return server

    def action_sign_in(self) -> None:
        server = self._http_server()
        if server is not None:
            self._sign_in(server)

    def action_sign_out(self) -> None:
        server = self._http_server()
        if server is not None:
            self._sign_out(server)

    @work(group="mcp-sign-in", exit_on_error=False)
    async def _sign_in(self, server: MCPServer) -> None:
        self._busy.add(server.name)
        self._refresh_states()
        self._status(f"Signing in to {server.name!r}: the page to open is shown next…")
        try:
            status = await self._manager.sign_in(server)
        finally:
            self._busy.discard(server.name)
            self._refresh_states()
        if status.state is ServerState.RUNNING:
            self._status(f"Signed in to {server.name!r}; it runs with {status.tool_count} tools.")
        else:
            self._status(f"{server.name!r}: {status.error or status.state.value}", error=True)

    @work(group="mcp-sign-in", exit_on_error=False)
    async def _sign_out(self, server: MCPServer) -> None:
        await self._manager.sign_out(server)
        self._refresh_states()
        self._status(f"Signed out of {server.name!r}: its tokens were removed from the credentials file.")
