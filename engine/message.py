"""One message of a dialog (spec file 003).

A message is a value: the dialog keeps its own copy of every message it is given and hands out copies, so a
caller that edits a `Message` it holds never changes the history behind the dialog's back.
"""

from __future__ import annotations

import copy
import json
from dataclasses import field
from enum import IntEnum
from typing import Any

from .attachments.errors import AttachmentError
from .attachments.model import Attachment
from .record import record


class Role(IntEnum):
    """Who speaks. `PROMPT` marks text made from a template; on the wire it is sent as `user`."""

    SYSTEM = 0
    USER = 1
    ASSISTANT = 2
    TOOL = 3
    PROMPT = 4

    @property
    def wire_name(self) -> str:
        """The role name the chat APIs understand (`PROMPT` travels as `user`)."""
        return "user" if self is Role.PROMPT else self.name.lower()

    @classmethod
    def parse(cls, value: object) -> Role | None:
        """Read a role written as a name (any case) or as its number; None when it is neither."""
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            try:
                return cls(value)
            except ValueError:
                return None
        if isinstance(value, str):
            try:
                return cls[value.strip().upper()]
            except KeyError:
                return None
        return None


@record(slots=True)
class Image:
    """An image attached to a user message, kept as base64 so a dialog stays one JSON document."""

    mime_type: str
    data: str

    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{self.data}"

    def to_json(self) -> dict[str, str]:
        return {"mime_type": self.mime_type, "data": self.data}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Image:
        return cls(mime_type=str(data.get("mime_type", "image/png")), data=str(data.get("data", "")))


@record(slots=True)
class Message:
    """A message as the spec defines it, plus what a workstation keeps with it.

    `tool_calls` is the raw JSON array text the server sent; it goes back on the wire verbatim and is never
    rebuilt, so nothing can drift from what the server expects. `meta` holds what the spec does not name
    (the provider and model that produced a reply, token usage, whether the reply was interrupted, opaque
    provider data such as Anthropic thinking signatures); it is saved with the message.
    """

    role: Role = Role.USER
    content: str = ""
    name: str = ""
    reasoning: str = ""
    tool_call_id: str = ""
    tool_calls: str = ""
    images: list[Image] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    #: Files the user attached (`engine.attachments`): the originals, sent in each wire format's own way.
    attachments: list[Attachment] = field(default_factory=list)

    def is_empty(self) -> bool:
        """True when there is neither content nor a tool call nor a file: a tool-call-only reply is not empty."""
        return not self.content and not self.tool_calls and not self.attachments

    def edited(self, content: str) -> Message:
        """The message as the user rewrote it: the new text, the same role, name, images and attached files
        (an edited question is asked about the same files); nothing of what answering it recorded (`meta`)."""
        return Message(
            role=self.role,
            content=content,
            name=self.name,
            images=self.copy().images,
            attachments=list(self.attachments),
        )

    def copy(self) -> Message:
        return Message(
            role=self.role,
            content=self.content,
            name=self.name,
            reasoning=self.reasoning,
            tool_call_id=self.tool_call_id,
            tool_calls=self.tool_calls,
            images=[Image(i.mime_type, i.data) for i in self.images],
            meta=copy.deepcopy(self.meta),
            attachments=list(self.attachments),
        )

    def parsed_tool_calls(self) -> list[dict[str, Any]]:
        """The tool calls as objects; an unreadable array reads as no calls rather than an exception."""
        if not self.tool_calls:
            return []
        try:
            value = json.loads(self.tool_calls)
        except ValueError:
            return []
        return [c for c in value if isinstance(c, dict)] if isinstance(value, list) else []

    def to_json(self) -> dict[str, Any]:
        """The message as a JSON object; the role is written as its lower-case name."""
        data: dict[str, Any] = {"role": self.role.name.lower(), "content": self.content}
        if self.name:
            data["name"] = self.name
        if self.reasoning:
            data["reasoning"] = self.reasoning
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.tool_calls:
            data["tool_calls"] = self.tool_calls
        if self.images:
            data["images"] = [image.to_json() for image in self.images]
        if self.meta:
            data["meta"] = copy.deepcopy(self.meta)
        if self.attachments:
            data["attachments"] = [attachment.to_json() for attachment in self.attachments]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        """Read a message; an unknown role becomes `Role.USER`.

        Carrying on with the text as user input does less harm than dropping a message (the spec's rule).
        Use `role_recognised` when the caller needs to know.
        """
        role = Role.parse(data.get("role"))
        tool_calls = data.get("tool_calls", "")
        if not isinstance(tool_calls, str):
            tool_calls = json.dumps(tool_calls, ensure_ascii=False, separators=(",", ":"))
        images_raw = data.get("images") or []
        meta = data.get("meta") or {}
        return cls(
            role=role if role is not None else Role.USER,
            content=_text(data.get("content")),
            name=_text(data.get("name")),
            reasoning=_text(data.get("reasoning")),
            tool_call_id=_text(data.get("tool_call_id")),
            tool_calls=tool_calls,
            images=[Image.from_json(i) for i in images_raw if isinstance(i, dict)],
            meta=copy.deepcopy(meta) if isinstance(meta, dict) else {},
            attachments=read_attachments(data.get("attachments")),
        )

    @staticmethod
    def role_recognised(data: dict[str, Any]) -> bool:
        """Whether `from_json` would read the role as written (the spec's boolean result)."""
        return Role.parse(data.get("role")) is not None


def read_attachments(value: object) -> list[Attachment]:
    """The attachments of a message document; an unreadable entry is left out (an import reports it first, see
    `import_repair`)."""
    found: list[Attachment] = []
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, dict):
            try:
                found.append(Attachment.from_json(entry))
            except AttachmentError:
                continue
    return found


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)
