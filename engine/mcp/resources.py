"""Resources: reading one, filling a template's URI, completing an argument, and attaching to a message.

An attached resource goes into the next user message: text as a context block the model reads
(`<resource uri=…>…</resource>`), an image as an image of the message (sent only to image-capable models, as
every image is), and its URI and server in `message.meta["resources"]`, so the message shows what was attached
and a stored dialog keeps it.
"""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..message import Image, Message
from .content import blob_text
from .status import MCPServerError

if TYPE_CHECKING:
    from .connection import ServerConnection

#: Text beyond this many characters is cut (with a note): one resource must not fill the context window.
MAX_RESOURCE_TEXT = 200_000
_TEMPLATE_VARIABLE = re.compile(r"\{[+#./;?&]?([A-Za-z0-9_]+)(?:\*|:\d+)?(?:,[A-Za-z0-9_]+)*\}")


@dataclass(frozen=True, slots=True)
class ResourceContent:
    """What `resources/read` returned, as the dialog uses it."""

    server: str
    uri: str
    texts: tuple[tuple[str, str], ...] = ()  # (uri, text) of each text part, text blobs decoded
    images: tuple[Image, ...] = ()
    skipped: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (uri, "mime, n bytes") of parts not used

    def context_text(self) -> str:
        parts = []
        for uri, text in self.texts:
            if len(text) > MAX_RESOURCE_TEXT:
                text = text[:MAX_RESOURCE_TEXT] + f"\n[… cut at {MAX_RESOURCE_TEXT} characters]"
            parts.append(f'<resource server="{self.server}" uri="{uri}">\n{text}\n</resource>')
        for uri, what in self.skipped:
            parts.append(f'<resource server="{self.server}" uri="{uri}">[{what}, not shown]</resource>')
        return "\n".join(parts)


def template_variables(uri_template: str) -> list[str]:
    """The variable names of an RFC 6570 template, in order, once each."""
    names: list[str] = []
    for match in _TEMPLATE_VARIABLE.finditer(uri_template):
        for name in re.findall(r"[A-Za-z0-9_]+", match.group(0).strip("{}").lstrip("+#./;?&")):
            if not name.isdigit() and name not in names:
                names.append(name)
    return names


def expand_template(uri_template: str, values: dict[str, str]) -> str:
    """Fill a template's variables (the SDK's own RFC 6570 expansion)."""
    from mcp.shared.uri_template import UriTemplate

    return str(UriTemplate.parse(uri_template).expand(values))


def _content(server: str, uri: str, result: Any) -> ResourceContent:
    texts: list[tuple[str, str]] = []
    images: list[Image] = []
    skipped: list[tuple[str, str]] = []
    for item in getattr(result, "contents", None) or []:
        item_uri = str(getattr(item, "uri", uri))
        mime = str(getattr(item, "mime_type", "") or "")
        text = getattr(item, "text", None)
        if isinstance(text, str):
            texts.append((item_uri, text))
            continue
        blob = str(getattr(item, "blob", ""))
        decoded = blob_text(mime, blob)
        if decoded is not None:
            texts.append((item_uri, decoded))
        elif mime.startswith("image/"):
            try:
                base64.b64decode(blob, validate=True)
            except ValueError:
                skipped.append((item_uri, f"{mime}, not valid base64"))
                continue
            images.append(Image(mime_type=mime, data=blob))
        else:
            skipped.append((item_uri, f"{mime or 'binary'}, about {len(blob) * 3 // 4} bytes"))
    return ResourceContent(server, uri, tuple(texts), tuple(images), tuple(skipped))


async def read(connection: ServerConnection, uri: str) -> ResourceContent:
    """Read a resource; `MCPServerError` says which server refused or failed and why."""
    await connection.ensure_running()
    client = connection.client
    if client is None:
        reason = connection.error or f"MCP server {connection.name!r} is not running"
        raise MCPServerError(reason, server=connection.name)
    from mcp.shared.exceptions import MCPError

    try:
        result = await asyncio.wait_for(client.read_resource(uri, cache_mode="bypass"), connection.request_timeout)
    except TimeoutError:
        seconds = connection.server.timeout
        message = f"MCP server {connection.name!r} did not answer the read of {uri} within {seconds:g} s"
        raise MCPServerError(message, server=connection.name) from None
    except MCPError as error:
        raise MCPServerError(
            connection.redacted(f"MCP server {connection.name!r} could not read {uri}: {error.message}"),
            server=connection.name,
        ) from None
    return _content(connection.name, uri, result)


async def complete(
    connection: ServerConnection, kind: str, name: str, argument: str, value: str, context: dict[str, str]
) -> list[str]:
    """Suggestions for a prompt's (`kind="prompt"`) or a resource template's (`kind="resource"`) argument.

    A server without the completions capability, or one that fails, suggests nothing.
    """
    client = connection.client
    if client is None or client.server_capabilities.completions is None:
        return []
    from mcp.shared.exceptions import MCPError
    from mcp_types import PromptReference, ResourceTemplateReference

    ref: PromptReference | ResourceTemplateReference
    ref = PromptReference(type="ref/prompt", name=name) if kind == "prompt" else ResourceTemplateReference(
        type="ref/resource", uri=name
    )
    try:
        result = await asyncio.wait_for(
            client.complete(ref, {"name": argument, "value": value}, context or None), connection.request_timeout
        )
    except (MCPError, ValueError, TimeoutError):
        return []
    return [str(v) for v in result.completion.values[:100]]


async def subscribe(connection: ServerConnection, uri: str, listener: Any) -> bool:
    """Call `listener(uri)` whenever the server says the resource changed; False when it cannot say so."""
    client = connection.client
    if client is None:
        return False
    capabilities = client.server_capabilities.resources
    if capabilities is None or not capabilities.subscribe:
        return False
    first = uri not in connection.resource_listeners
    connection.resource_listeners.setdefault(uri, []).append(listener)
    if not first:
        return True
    from .changes import is_modern

    if is_modern(client):
        connection.restart_listening()
        return True
    import warnings

    from mcp.shared.exceptions import MCPError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated in 2026-07-28; still how a 2025 server subscribes
            await client.subscribe_resource(uri)
    except MCPError:
        connection.resource_listeners.pop(uri, None)
        return False
    return True


def attach(message: Message, content: ResourceContent, *, images: bool = True) -> None:
    """Put a read resource into a user message: text as context, images as images, the URI in `meta`.

    With `images=False` (the model takes no images) an image is named in the context instead of sent.
    """
    if not images and content.images:
        unsent = tuple((content.uri, f"{image.mime_type}; the model takes no images") for image in content.images)
        content = ResourceContent(content.server, content.uri, content.texts, (), content.skipped + unsent)
    context = content.context_text()
    if context:
        message.content = f"{context}\n\n{message.content}" if message.content else context
    message.images.extend(content.images)
    message.meta.setdefault("resources", []).append({"server": content.server, "uri": content.uri})
