"""Why a server could not start, in words a user can act on (and with every expanded secret scrubbed out)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .expand import redact

if TYPE_CHECKING:
    from ..mcp_server import MCPServer

_CONNECTION_CLOSED = -32000


def root_cause(error: BaseException) -> BaseException:
    """The first leaf of an exception group (task groups wrap the real error)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


class StartFailures:
    """Part of `ServerConnection`: the attributes below are its own."""

    server: MCPServer
    log_path: Path | None
    startup_timeout: float
    _http_refusal: tuple[int, str] | None
    _secrets: frozenset[str]

    @property
    def name(self) -> str:
        return self.server.name

    def _may_be_legacy_sse(self) -> bool:
        """An unlabelled URL answered the Streamable HTTP handshake with a 4xx that is not about credentials."""
        refusal = self._http_refusal
        return (
            self.server.transport is None
            and self.server.kind == "http"
            and refusal is not None
            and 400 <= refusal[0] < 500
            and refusal[0] not in (401, 403)
        )

    def _where_to_look(self) -> str:
        if self.log_path is not None and self.server.kind == "stdio":
            return f"; its log is {self.log_path}"
        return ""

    def _describe(self, error: BaseException) -> str:
        """A user-facing reason for a start failure, with any expanded secret scrubbed out."""
        error = root_cause(error)
        server = self.server
        hint = self._where_to_look()
        if isinstance(error, FileNotFoundError) and server.kind == "stdio":
            hint = ""
            if server.cwd and error.filename and str(error.filename) == os.path.expanduser(server.cwd):
                reason = f"its working directory {server.cwd!r} does not exist"
            else:
                where = "" if "/" in server.command or os.sep in server.command else " on PATH"
                reason = f"the command {server.command!r} was not found{where}"
        elif isinstance(error, PermissionError) and server.kind == "stdio":
            hint = ""
            reason = f"the command {server.command!r} could not be run (permission denied)"
        elif type(error).__name__ in ("SignInNeeded", "OAuthFlowError", "OAuthTokenError", "OAuthRegistrationError"):
            hint = ""
            reason = str(error) if type(error).__name__ == "SignInNeeded" else f"signing in failed: {error}"
        elif isinstance(error, TimeoutError):
            reason = f"it did not answer within {self.startup_timeout:g} s"
        elif getattr(error, "code", None) == _CONNECTION_CLOSED or isinstance(error, EOFError):
            reason = "it exited during startup" if server.kind == "stdio" else "the connection was closed"
        elif self._http_refusal is not None:  # the SDK reports only "an error response"; say which
            status, phrase = self._http_refusal
            reason = f"{server.url} answered HTTP {status} {phrase}".rstrip()
            if status == 401:
                reason += (" (check the token or other headers it needs; if it signs in with OAuth, o on the MCP "
                           "servers screen signs in, or set oauth = true)")
            elif status == 403:
                reason += " (check the token or other headers it needs)"
            elif self._may_be_legacy_sse():
                reason += " as Streamable HTTP and did not answer as legacy SSE either (is the URL right?)"
        elif type(error).__module__.startswith("httpx"):
            reason = f"could not reach {server.url}: {type(error).__name__}: {error}"
        else:
            reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        return redact(f"MCP server {self.name!r} could not start: {reason}{hint}", self._secrets)
