"""Conversion between engine objects and table rows.

A message row holds the fields of `Message.to_json()` as columns (JSON text for images, meta and attachment
references; the attached bytes are in `blobs`), so reading a row back gives the same document the dialog wrote; a
dialog row holds everything of `Dialog.to_json()` except the messages. The store never builds its own idea of a
dialog: a loaded dialog is `Dialog.from_json` of the document assembled here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..message import Message
from ..sanitize import clean

if TYPE_CHECKING:
    from ..dialog import Dialog

MESSAGE_COLUMNS = (
    "role",
    "content",
    "name",
    "reasoning",
    "tool_call_id",
    "tool_calls",
    "images",
    "meta",
    "attachments",
)
DIALOG_CONFIG_COLUMNS = (
    "branch_from_id",
    "title",
    "provider_id",
    "model_id",
    "capability_requirement",
    "skills",
    "mcp_servers",
    "prompts",
    "parameters",
)


def dumps(value: Any) -> str:
    """Compact JSON that keeps non-ASCII text readable in the file (and searchable by sqlite3 tools).

    A value JSON cannot hold (something a provider put into `meta`) is written as its text: saving the dialog
    with one odd value turned into a string beats not saving it at all.
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def message_values(message: Message) -> tuple[str, ...]:
    """The message's columns in `MESSAGE_COLUMNS` order."""
    return (
        message.role.name.lower(),
        message.content,
        message.name,
        message.reasoning,
        message.tool_call_id,
        message.tool_calls,
        dumps([image.to_json() for image in message.images]) if message.images else "",
        dumps(message.meta) if message.meta else "",
        dumps([a.reference_json() for a in message.attachments]) if message.attachments else "",
    )


def message_document(row: tuple[Any, ...]) -> dict[str, Any]:
    """A `Message.to_json()`-shaped document from the columns in `MESSAGE_COLUMNS` order."""
    role, content, name, reasoning, tool_call_id, tool_calls, images, meta, attachments = row
    document: dict[str, Any] = {"role": role, "content": content}
    if name:
        document["name"] = name
    if reasoning:
        document["reasoning"] = reasoning
    if tool_call_id:
        document["tool_call_id"] = tool_call_id
    if tool_calls:
        document["tool_calls"] = tool_calls
    if images:
        document["images"] = json.loads(images)
    if meta:
        document["meta"] = json.loads(meta)
    if attachments:  # references only: `blobs.fill` gives them their bytes
        document["attachments"] = json.loads(attachments)
    return document


def dialog_config_values(dialog: Dialog) -> tuple[str, ...]:
    """The dialog's configuration columns in `DIALOG_CONFIG_COLUMNS` order (no messages: cheap for long ones).

    MCP servers are written as configured, `${VAR}` references unexpanded, so no secret from the environment
    reaches the file.
    """
    return (
        dialog.branch_from_id,
        dialog.title,
        dialog.provider_id,
        dialog.model_id,
        dumps(dialog.capability_requirement.names()),
        dumps([skill.to_json() for skill in dialog.skills]),
        dumps([server.to_json() for server in dialog.mcp_servers]),
        dumps([prompt.to_json() for prompt in dialog.prompts]),
        dumps(dialog.parameters),
    )


def dialog_document(row: tuple[Any, ...], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A `Dialog.to_json()`-shaped document from `id`, the config columns, `created_at`, and the messages."""
    dialog_id, branch_from_id, title, provider_id, model_id, capability, skills, servers, prompts, parameters = row[:10]
    created = row[10]
    return {
        "id": dialog_id,
        "branch_from_id": branch_from_id,
        "title": title,
        "provider_id": provider_id,
        "model_id": model_id,
        "capability_requirement": json.loads(capability),
        "created_at": created,
        "messages": messages,
        "skills": json.loads(skills),
        "mcp_servers": json.loads(servers),
        "prompts": json.loads(prompts),
        "parameters": json.loads(parameters),
    }


def make_title(text: str, limit: int = 60) -> str:
    """A dialog title from a user message: its first non-empty line, whitespace collapsed, cut at a word.

    The message is outside text: escape sequences and control characters are removed before anything else,
    so a title never carries one into the tree, a notice or `visindigo list`.
    """
    for line in clean(text[: limit * 64]).splitlines():
        words = line.strip().lstrip("#>*-").split()
        if words:
            title = " ".join(words)
            break
    else:
        return ""
    if len(title) <= limit:
        return title
    cut = title[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,.;:") + "…"
