"""Hearing of a server's changes: list changes and updated resources, in either protocol era.

Handshake-era servers (up to 2025-11-25) send `notifications/*/list_changed` and `notifications/resources/
updated` on their own (after `resources/subscribe`); they reach `ServerConnection._on_message`. A 2026-07-28
server sends them only while the client holds a `subscriptions/listen` stream open with the filter it wants;
this module keeps that stream open for a connection and reopens it when the set of watched resources changes.
The SDK passes the stream's events on to the message handler as ordinary notifications too, so they are acted
on in one place, `_on_message`, whatever the era.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.client import Client

    from ..mcp_server import MCPServer

log = logging.getLogger(__name__)

MODERN_PREFIX = "2026"


def is_modern(client: Client) -> bool:
    return client.protocol_version >= MODERN_PREFIX


async def listen(client: Client, server: str, uris: Iterable[str]) -> None:
    """Hold the change stream open until cancelled or it ends (then it is not reopened)."""
    from mcp.shared.exceptions import MCPError

    capabilities = client.server_capabilities
    tools = bool(capabilities.tools and capabilities.tools.list_changed)
    prompts = bool(capabilities.prompts and capabilities.prompts.list_changed)
    resources = bool(capabilities.resources and capabilities.resources.list_changed)
    watched = list(uris) if capabilities.resources and capabilities.resources.subscribe else []
    if not (tools or prompts or resources or watched):
        return
    try:
        async with client.listen(
            tools_list_changed=tools,
            prompts_list_changed=prompts,
            resources_list_changed=resources,
            resource_subscriptions=watched,
        ) as subscription:
            async for _event in subscription:
                pass  # delivered to the message handler as a notification as well: handled there
    except (MCPError, RuntimeError, TimeoutError) as error:  # RuntimeError: SubscriptionLost, not supported
        log.info("MCP server %r: the change stream ended: %s", server, error)


class ChangeFollowing:
    """Part of `ServerConnection`: following the server's changes; the attributes below are its own."""

    server: MCPServer
    loop: asyncio.AbstractEventLoop | None
    resource_listeners: dict[str, list[Any]]
    _client: Client | None
    _lists_changed: bool
    _lock: asyncio.Lock
    _background: set[asyncio.Task[None]]
    _listen_task: asyncio.Task[None] | None

    @property
    def name(self) -> str:
        return self.server.name

    if TYPE_CHECKING:  # provided by ServerConnection

        @property
        def is_running(self) -> bool: ...

        async def _refresh_lists(self) -> None: ...

    async def _on_message(self, message: Any) -> None:
        """List changes are re-read at once (a run about to start sees them); resource updates go to listeners."""
        method = getattr(message, "method", "")
        if method in (
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ):
            self._lists_changed = True
            if self._client is not None and self.loop is not None:
                task = self.loop.create_task(self._refresh_soon())
                self._background.add(task)
                task.add_done_callback(self._background.discard)
        elif method == "notifications/elicitation/complete":  # a URL-mode elicitation finished on its page
            log.info("MCP server %r: an elicitation in the browser was completed", self.name)
        elif method == "notifications/resources/updated":
            self._resource_updated(str(getattr(getattr(message, "params", None), "uri", "")))

    def restart_listening(self) -> None:
        """(Re)open the 2026-07-28 change stream with the resources watched now; handshake era needs none."""
        self._stop_listening()
        client = self._client
        if client is None or self.loop is None or not is_modern(client):
            return
        self._listen_task = self.loop.create_task(
            listen(client, self.name, list(self.resource_listeners))
        )

    async def roots_changed(self) -> None:
        """Send `notifications/roots/list_changed` (handshake era; 2026-07-28 servers ask again each time)."""
        client = self._client
        if client is None or is_modern(client):
            return
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated in 2026-07-28, the way for older servers
            await client.send_roots_list_changed()

    def _stop_listening(self) -> None:
        if self._listen_task is not None:
            self._listen_task.cancel()
            self._listen_task = None

    def _resource_updated(self, uri: str) -> None:
        for listener in list(self.resource_listeners.get(uri, ())):
            try:
                listener(uri)
            except Exception:  # a listener's bug must not break the server's message loop
                log.exception("a listener of resource %s failed", uri)

    async def _refresh_soon(self) -> None:
        async with self._lock:
            if self.is_running and self._lists_changed:
                await self._refresh_lists()

    async def _set_log_level(self, client: Client) -> None:
        """Handshake-era servers take the level as a request (modern ones get it on every request's `_meta`)."""
        level = self.server.log_level
        if not level or client.server_capabilities.logging is None or client.protocol_version >= "2026":
            return
        import warnings

        from mcp.shared.exceptions import MCPError

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated in 2026-07-28, still the way for this server
                await client.set_logging_level(level)
        except MCPError as error:
            log.info("MCP server %r refused the log level %s: %s", self.name, level, error)
