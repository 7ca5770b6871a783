"""Branch rules the engine and the TUI share: where a branch that answers again is cut, and when two
dialogs hold the same message (so where they part).

Kept in the engine because a comparison regenerates an answer for several models at once and must cut exactly
where regenerating one answer would, and the divergence list and the Markdown export must find the same
points where branches part as the message pane's ◀ n/m ▶ does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .message import Message, Role

if TYPE_CHECKING:
    from .dialog import Dialog

#: The roles of a message the user wrote (a template's text counts as written by the user).
ASKING_ROLES = (Role.USER, Role.PROMPT)


def answer_cut(dialog: Dialog, index: int | None = None) -> int:
    """How many messages a branch that answers again keeps, for the answer at (or after) message `index`.

    Without an index it is `Center.regenerate`'s rule: cut before the last assistant message, so tool results
    that came before it are kept and no tool runs twice. With an assistant message at `index` the cut is
    before it; on the user's message, right after it (answer it again); on a tool result, before the assistant
    message that read it. `message_count` means there is nothing to replace (the dialog ends with the user's
    message): the branch keeps everything and answers it.
    """
    count = dialog.message_count
    if index is None:
        last = dialog.find_last_assistant_message()
        return last if last >= 0 else count
    if not count:
        return 0
    index = max(0, min(index, count - 1))
    role = dialog.message_at(index).role
    if role is Role.ASSISTANT:
        return index
    if role in ASKING_ROLES:
        return index + 1
    for position in range(index + 1, count):
        if dialog.message_at(position).role is Role.ASSISTANT:
            return position
    return count


def keep_answering_model(dialog: Dialog, cut: int) -> None:
    """After branching `dialog` at `cut` to answer again: a model chosen (f2) just before is the branch's, and
    the dialog keeps the one that gave the answer being replaced, so the tree can say which branch has which."""
    if cut >= dialog.message_count:
        return
    replaced = dialog.message_at(cut)
    answered_by = str(replaced.meta.get("model_id") or "") if replaced.role is Role.ASSISTANT else ""
    if answered_by and dialog.model_id and answered_by != dialog.model_id:
        dialog.model_id = answered_by


def message_key(message: Message) -> tuple[object, ...]:
    """What makes two messages the same one for branching: role, text, tool calls, call id and name."""
    return (message.role, message.content, message.tool_calls, message.tool_call_id, message.name)


def same_message(a: Message, b: Message) -> bool:
    return message_key(a) == message_key(b)


def common_prefix(a: Sequence[Message], b: Sequence[Message]) -> int:
    """How many leading messages two dialogs share."""
    count = 0
    for left, right in zip(a, b, strict=False):
        if not same_message(left, right):
            break
        count += 1
    return count
