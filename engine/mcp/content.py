"""Turning what an MCP server returns into what the dialog keeps: tool results and prompt messages.

A chat API's tool result is text, so everything a tool returns is folded into one JSON object the model can
read: `structuredContent` when the server gives it (it is the machine-readable form), otherwise the text
blocks joined; images, audio and resources are summarised in words rather than dropped silently. An
`isError` result becomes `{"isError": true, "error": …}` so the run loop marks it failed and the model still
reads why.

Blocks are read by their `type` attribute only, so this module never imports the SDK.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import json
from typing import Any

from ..message import Image, Message, Role
from ..sanitize import clean

#: Types outside `text/` whose bytes are text all the same (a server may send any of them as a blob).
_TEXT_TYPES = {
    "application/json",
    "application/xml",
    "application/javascript",
    "application/ecmascript",
    "application/x-javascript",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/sql",
    "application/x-sh",
    "application/x-httpd-php",
    "application/graphql",
}


def _approx_bytes(data_b64: str) -> int:
    return len(data_b64) * 3 // 4


def is_text_type(mime: str) -> bool:
    """Whether a MIME type names text (`text/*`, JSON, XML, YAML, scripts …), parameters aside."""
    kind = mime.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml", "+yaml"))


def blob_text(mime: str, blob: str) -> str | None:
    """A blob of a text type as text — its `charset` (else UTF-8), bad bytes replaced, sanitised; else None.

    A server may send text as a blob (the reference server does, as `text/plain`); showing it as "binary"
    would hide from the model what it asked for. None for a non-text type or data that is not base64.
    """
    if not is_text_type(mime):
        return None
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        return None
    encoding = "utf-8"
    for parameter in mime.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            encoding = value.strip().strip('"')
    try:
        codecs.lookup(encoding)
    except LookupError:
        encoding = "utf-8"
    return clean(data.decode(encoding, errors="replace"))


def block_text(block: Any) -> str:
    """One content block as text: text verbatim, everything else as a short bracketed summary."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", "") or "unknown type"
        return f"[{kind}: {mime}, about {_approx_bytes(str(getattr(block, 'data', '')))} bytes, not shown]"
    if kind == "resource_link":
        name = getattr(block, "title", None) or getattr(block, "name", "") or "resource"
        mime = getattr(block, "mime_type", None)
        description = getattr(block, "description", None)
        text = f"[resource link: {name} <{getattr(block, 'uri', '')}>{f' ({mime})' if mime else ''}]"
        return f"{text} {description}" if description else text
    if kind == "resource":
        resource = getattr(block, "resource", None)
        uri = getattr(resource, "uri", "")
        mime = getattr(resource, "mime_type", None)
        body = getattr(resource, "text", None)
        if isinstance(body, str):
            return f"[resource {uri}{f' ({mime})' if mime else ''}]\n{body}"
        blob = str(getattr(resource, "blob", ""))
        decoded = blob_text(str(mime or ""), blob)
        if decoded is not None:
            return f"[resource {uri} ({mime})]\n{decoded}"
        return f"[resource {uri} ({mime or 'binary'}), about {_approx_bytes(blob)} bytes, not shown]"
    return f"[{kind or 'unknown'} content, not shown]"


def _repeats(text: str, structured: object) -> bool:
    """Whether the text blocks are just the structured content serialised (what most servers send)."""
    if structured == {"result": text}:  # the SDK wraps a plain return value so
        return True
    try:
        return bool(json.loads(text) == structured)
    except (ValueError, TypeError):
        return False


def call_result_to_dict(result: Any, output_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `CallToolResult` as the JSON object the model receives.

    With `structuredContent` the object is that content; text blocks that say more than its serialisation
    are kept beside it as `content` (the spec: a client may show either, so a server can put different
    things in each). The SDK has already checked the content against `output_schema`.
    """
    blocks = list(getattr(result, "content", None) or [])
    text = "\n".join(block_text(block) for block in blocks)
    if getattr(result, "is_error", False):
        return {"isError": True, "error": text or "the tool reported an error without saying why"}
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        data: dict[str, Any] = dict(structured) if isinstance(structured, dict) else {"result": structured}
        if text and "content" not in data and not _repeats(text, structured):
            data["content"] = text
        return data
    return {"content": text}


def prompt_messages(result: Any, label: str) -> list[Message]:
    """The messages of a `GetPromptResult`, named `label` (`server/prompt`).

    User messages become `Role.PROMPT` (template text, sent as `user`); an assistant message in a prompt stays
    `Role.ASSISTANT` so a few-shot prompt keeps its shape. An image joins the message before it when that
    message has the same role, so an image-with-caption prompt stays one message.
    """
    messages: list[Message] = []
    for item in getattr(result, "messages", None) or []:
        role = Role.ASSISTANT if str(getattr(item, "role", "user")) == "assistant" else Role.PROMPT
        block = getattr(item, "content", None)
        if getattr(block, "type", "") == "image":
            image = Image(mime_type=str(getattr(block, "mime_type", "image/png")), data=str(getattr(block, "data", "")))
            if messages and messages[-1].role is role:
                messages[-1].images.append(image)
            else:
                messages.append(Message(role, "", name=label, images=[image]))
            continue
        messages.append(Message(role, block_text(block), name=label))
    return messages
