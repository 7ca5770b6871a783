"""Prompt templates (spec file 002): text with `{{variable}}` placeholders, rendered into a message.

A placeholder the caller does not fill stays in the rendered text as written. That is deliberate (the spec):
a half-filled template sent as is makes the model guess, while a visible `{{name}}` shows at once what is
missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .message import Message, Role

#: `{{ name }}`: a name of word characters (any script), dots or dashes, spaces around it allowed.
PLACEHOLDER = re.compile(r"\{\{\s*([^\W\d][\w.-]*)\s*\}\}")


@dataclass
class Prompt:
    name: str = ""
    content: str = ""
    description: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        self.tags = tuple(self.tags)

    def variables(self) -> list[str]:
        """Placeholder names, each once, in order of first appearance."""
        seen: dict[str, None] = {}
        for match in PLACEHOLDER.finditer(self.content):
            seen.setdefault(match.group(1), None)
        return list(seen)

    def render(self, variables: Mapping[str, str] | None = None) -> Message:
        """A `Role.PROMPT` message named after this prompt; unknown placeholders are left as written."""
        values = dict(variables or {})

        def fill(match: re.Match[str]) -> str:
            key = match.group(1)
            return str(values[key]) if key in values else match.group(0)

        return Message(Role.PROMPT, PLACEHOLDER.sub(fill, self.content), name=self.name)

    def is_valid(self) -> bool:
        """Usable when both the name and the content are non-empty."""
        return bool(self.name) and bool(self.content)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "content": self.content}
        if self.description:
            data["description"] = self.description
        if self.tags:
            data["tags"] = list(self.tags)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Prompt:
        tags = data.get("tags") or ()
        return cls(
            name=str(data.get("name", "")),
            content=str(data.get("content", "")),
            description=str(data.get("description", "")),
            tags=tuple(str(t) for t in tags) if isinstance(tags, Iterable) and not isinstance(tags, str) else (),
        )
