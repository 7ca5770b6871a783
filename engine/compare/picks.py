"""A pick: which answer of a comparison the user chose, the record the scores are computed from.

A pick names the winner and the losers by branch dialog and by the model that answered, the dialog the
question was asked in, when, whether the columns were blind, and a tag (the dialog's template or skill) so
scores can be read per kind of task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..message import Role
from ..sanitize import clean_line

if TYPE_CHECKING:
    from ..dialog import Dialog


#: The longest tag kept (template and skill names are short; one from outside must not be a page).
TAG_LIMIT = 120


@dataclass(frozen=True, slots=True)
class PickedModel:
    """One answer of a comparison: its branch dialog and the model that gave it."""

    dialog_id: str
    provider_id: str
    model_id: str

    @property
    def key(self) -> tuple[str, str]:
        """What the scores count by: the same model id at two providers is two entries."""
        return (self.provider_id, self.model_id)

    def to_json(self) -> dict[str, str]:
        return {"dialog_id": self.dialog_id, "provider_id": self.provider_id, "model_id": self.model_id}

    @classmethod
    def from_json(cls, data: Any) -> PickedModel | None:
        if not isinstance(data, dict):
            return None
        dialog_id, provider_id, model_id = (data.get(name) for name in ("dialog_id", "provider_id", "model_id"))
        if not (isinstance(dialog_id, str) and isinstance(provider_id, str) and isinstance(model_id, str)):
            return None
        return cls(dialog_id, provider_id, model_id)


@dataclass(frozen=True, slots=True)
class Pick:
    """The user chose `winner` over each of `losers` (answers that failed with no text are in neither)."""

    question_dialog_id: str
    winner: PickedModel
    losers: tuple[PickedModel, ...]
    created_at: float
    blind: bool = False
    #: The question's template or the dialog's skill ("" when it has neither): scores are also kept per tag.
    tag: str = ""
    #: The store's row id (0 until recorded in a store).
    id: int = 0


def comparison_tag(dialog: Dialog, cut: int) -> str:
    """The tag of a question asked in `dialog` whose answers start at `cut`.

    The question's own template when it was written with one; else the first template used in the dialog; else
    the dialog's first own skill; else "". Skills of the Center apply to every dialog and tag none.
    """
    asked = [dialog.message_at(index) for index in range(min(cut, dialog.message_count))]
    for message in reversed(asked):
        if message.role in (Role.USER, Role.PROMPT):
            if message.role is Role.PROMPT and message.name:
                return clean_line(message.name, TAG_LIMIT)
            break
    for message in asked:
        if message.role is Role.PROMPT and message.name:
            return clean_line(message.name, TAG_LIMIT)
    skills = dialog.skills
    return clean_line(skills[0].name, TAG_LIMIT) if skills else ""
