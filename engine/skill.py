"""Skills: resident fragments of the system prompt.

A prompt template is inserted into a dialog on purpose and stays in its history as a message; a skill makes
no message at all, it is part of who the assistant is in every request of the dialog.
"""

from __future__ import annotations

from typing import Any

from .record import record


@record(frozen=True, slots=True)
class Skill:
    name: str
    content: str
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "content": self.content}
        if self.description:
            data["description"] = self.description
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Skill:
        return cls(
            name=str(data.get("name", "")),
            content=str(data.get("content", "")),
            description=str(data.get("description", "")),
        )
