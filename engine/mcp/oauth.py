"""Signing in to an HTTP MCP server with OAuth, through the SDK's client auth (`mcp.client.auth`).

The SDK does the protocol: protected-resource and authorization-server metadata discovery, dynamic client
registration, PKCE, the token exchange and refreshing an expired token. This module gives it what only a
client can: where tokens live, how the user gets to the authorization page, and where the browser comes back.

- **Tokens** are kept in the credentials file (`credentials.toml`, mode 0600) under
  `[mcp_oauth."<server>"]`, with the server's URL (tokens of another URL are never sent), the client
  registration, the token's expiry (so a restarted app refreshes instead of asking again) and the loopback port
  the client registered (so the registration stays valid).
- **The authorization page** is handed to the host (`MCPHost.sign_in`), which shows it and copies it with
  OSC 52 — over SSH the browser runs on another machine. Without a host that can, the start fails with a
  message saying the server needs a sign-in.
- **The redirect** is caught by a one-shot HTTP listener on 127.0.0.1 (RFC 8252 loopback redirect).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from ..config.files import CREDENTIALS_HEADER, read_for_update, read_toml, write_toml

if TYPE_CHECKING:
    from ..mcp_server import MCPServer
    from .host import MCPHost

log = logging.getLogger(__name__)

SECTION = "mcp_oauth"
#: How long the user has to finish signing in in the browser.
SIGN_IN_TIMEOUT = 300.0

_PAGE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n"
    b"<!doctype html><title>Signed in</title><p>Visindigo received the sign-in. You can close this tab.</p>"
)


class SignInNeeded(Exception):
    """The server wants a sign-in the client cannot do here (no host to show the page), or it was abandoned."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class CredentialsTokenStorage:
    """The SDK's `TokenStorage` over one server's entry in the credentials file."""

    def __init__(self, credentials_file: Path, server: MCPServer) -> None:
        self.file = credentials_file
        self.server = server

    def entry(self) -> dict[str, Any]:
        try:
            document = read_toml(self.file) or {}
        except Exception:  # an unreadable credentials file means "not signed in", reported by the config check
            return {}
        entry = (document.get(SECTION) or {}).get(self.server.name) or {}
        if not isinstance(entry, dict) or entry.get("url") != self.server.url:
            return {}
        return entry

    def update(self, **values: Any) -> None:
        """Change this server's entry (a broken credentials file raises `ConfigError` instead of being replaced)."""
        document = read_for_update(self.file)
        section = document.setdefault(SECTION, {})
        entry = section.get(self.server.name)
        if not isinstance(entry, dict) or entry.get("url") != self.server.url:
            entry = {"url": self.server.url}
        entry.update({k: v for k, v in values.items() if v is not None})
        section[self.server.name] = entry
        write_toml(self.file, document, header=CREDENTIALS_HEADER, private=True)

    @property
    def expires_at(self) -> float | None:
        value = self.entry().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    @property
    def redirect_port(self) -> int | None:
        value = self.entry().get("redirect_port")
        return int(value) if isinstance(value, int) else None

    def has_tokens(self) -> bool:
        return bool(self.entry().get("tokens"))

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        data = self.entry().get("tokens")
        return OAuthToken.model_validate(data) if isinstance(data, dict) else None

    async def set_tokens(self, tokens: Any) -> None:
        expires = time.time() + tokens.expires_in if tokens.expires_in else None
        self.update(tokens=tokens.model_dump(mode="json", exclude_none=True), expires_at=expires)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        data = self.entry().get("client")
        return OAuthClientInformationFull.model_validate(data) if isinstance(data, dict) else None

    async def set_client_info(self, client_info: Any) -> None:
        self.update(client=client_info.model_dump(mode="json", exclude_none=True))

    def forget(self) -> None:
        """Sign out: drop the server's tokens and registration."""
        document = read_for_update(self.file)
        if self.server.name in (document.get(SECTION) or {}):
            del document[SECTION][self.server.name]
            write_toml(self.file, document, header=CREDENTIALS_HEADER, private=True)


class LoopbackCatcher:
    """Waits for the browser's one redirect to http://127.0.0.1:PORT/callback and reads its query."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def start(self) -> None:
        if self._server is not None:
            return
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._answer, "127.0.0.1", self.port)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            parts = line.split()
            query = urlsplit(parts[1]).query if len(parts) >= 2 else ""
            values = {key: items[0] for key, items in parse_qs(query).items()}
            writer.write(_PAGE)
            await writer.drain()
            on_callback = urlsplit(parts[1] if len(parts) >= 2 else "").path == "/callback"
            result = self._result
            if on_callback and result is not None and not result.done() and ("code" in values or "error" in values):
                result.set_result(values)
        except (TimeoutError, OSError, UnicodeError):
            pass
        finally:
            writer.close()

    async def wait(self, timeout: float) -> dict[str, str]:
        assert self._result is not None, "start() first"
        try:
            return await asyncio.wait_for(asyncio.shield(self._result), timeout)
        finally:
            await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None


class OAuthSignIn:
    """Everything one server's OAuth needs; `auth()` is the SDK provider to put on the HTTP client."""

    def __init__(
        self,
        server: MCPServer,
        credentials_file: Path,
        host: MCPHost | None,
        signing_in: Callable[[bool], None] | None = None,
    ) -> None:
        self.server = server
        self._signing_in = signing_in or (lambda _value: None)
        self.storage = CredentialsTokenStorage(credentials_file, server)
        self.host = host
        self.catcher = LoopbackCatcher(self.storage.redirect_port or free_port())
        self.signed_in_now = False

    def auth(self) -> Any:
        from mcp.client.auth import OAuthClientProvider
        from mcp.shared.auth import OAuthClientMetadata

        metadata = OAuthClientMetadata.model_validate(
            {
                "client_name": "Visindigo",
                "redirect_uris": [self.catcher.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            }
        )
        provider = OAuthClientProvider(
            self.server.url, metadata, self.storage, redirect_handler=self._redirect, callback_handler=self._callback
        )
        # A restarted app knows when the stored token expires, so it refreshes instead of asking again.
        provider.context.token_expiry_time = self.storage.expires_at
        self.storage.update(redirect_port=self.catcher.port)
        return provider

    async def _redirect(self, url: str) -> None:
        sign_in = getattr(self.host, "sign_in", None)
        if not callable(sign_in):
            raise SignInNeeded(f"MCP server {self.server.name!r} needs you to sign in, and nothing here can show "
                               "the sign-in page (start the app to sign in)")
        await self.catcher.start()
        self._signing_in(True)
        self._finished = asyncio.Event()
        self._asking = asyncio.ensure_future(sign_in(self.server.name, url, self._finished))

    async def _callback(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        waiting = asyncio.ensure_future(self.catcher.wait(SIGN_IN_TIMEOUT))
        try:
            done, _pending = await asyncio.wait({waiting, self._asking}, return_when=asyncio.FIRST_COMPLETED)
            if waiting not in done:  # the user closed the sign-in (cancelled)
                raise SignInNeeded(f"signing in to MCP server {self.server.name!r} was cancelled")
            values = waiting.result()
        except TimeoutError:
            raise SignInNeeded(
                f"signing in to MCP server {self.server.name!r} was not finished within {SIGN_IN_TIMEOUT:g} s"
            ) from None
        finally:
            self._signing_in(False)
            self._finished.set()
            waiting.cancel()
            await self.catcher.close()
        if "error" in values:
            reason = values.get("error_description") or values["error"]
            raise SignInNeeded(f"MCP server {self.server.name!r} refused the sign-in: {reason}")
        self.signed_in_now = True
        return AuthorizationCodeResult(code=values["code"], state=values.get("state"), iss=values.get("iss"))
