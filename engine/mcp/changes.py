"""Hearing of a server's changes: list changes and updated resources, in either protocol era.

Handshake-era servers (up to 2025-11-25) send `notifications/*/list_changed` and `notifications/resources/
updated` on their own (after `resources/subscribe`); they reach `ServerConnection._on_message`. A 2026-07-28
server sends them only on a `subscriptions/listen` stream the client opens, with the filter it wants; this
module keeps that stream open for a connection and reopens it when the set of watched resources changes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.client import Client

log = logging.getLogger(__name__)

MODERN_PREFIX = "2026"


def is_modern(client: Client) -> bool:
    return client.protocol_version >= MODERN_PREFIX


async def listen(
    client: Client,
    server: str,
    uris: Iterable[str],
    on_lists_changed: Callable[[], Awaitable[None]],
    on_resource_updated: Callable[[str], None],
) -> None:
    """Follow the server's change events until cancelled or the stream ends (then it is not reopened)."""
    from mcp.client.subscriptions import ResourceUpdated
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
            async for event in subscription:
                if isinstance(event, ResourceUpdated):
                    on_resource_updated(str(event.uri))
                else:
                    await on_lists_changed()
    except (MCPError, RuntimeError, TimeoutError) as error:  # RuntimeError: SubscriptionLost, not supported
        log.info("MCP server %r: the change stream ended: %s", server, error)
