"""Where the dialogs of one family part: every message index at which their answers (or questions) differ.

A family is one tree of dialogs linked by `branch_from_id`. Laid over each other, the dialogs form a tree of
messages: the messages they share are one path, and each place where that path forks is a *divergence* — a
comparison, a regenerate or an edited question. The list of them lets the user jump to any alternative
without stepping through the tree branch by branch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..branching import message_key
from ..message import Message, Role
from ..sanitize import clean_line

if TYPE_CHECKING:
    from ..center import Center
    from ..dialog import Dialog

#: How many words of each alternative the list shows.
FIRST_WORDS = 8


@dataclass(frozen=True, slots=True)
class Alternative:
    """One way the family goes on at a divergence: the oldest dialog that goes this way, and who answered."""

    dialog_id: str
    role: Role
    first_words: str
    provider_id: str
    model_id: str


@dataclass(frozen=True, slots=True)
class Divergence:
    """At message `index` the family parts into `alternatives` (oldest first, two or more).

    `current` is the position in `alternatives` of the way the shown dialog goes, or -1 when it goes none of
    them (it ends before, or is in another part of the tree).
    """

    index: int
    alternatives: tuple[Alternative, ...]
    current: int = -1


@dataclass(eq=False)
class _Node:
    """A message shared by every dialog passing through it; children keyed by the next message."""

    dialog: Dialog | None = None
    message: Message | None = None
    children: dict[tuple[object, ...], _Node] = field(default_factory=dict)


def family_ids(center: Center, dialog_id: str) -> list[str]:
    """Every dialog of `dialog_id`'s tree, its root first, branches depth first in creation order (metadata
    only: nothing is loaded to find them)."""
    from ..export import dialog_with_branches

    parents = {summary.id: summary.branch_from_id for summary in center.dialog_summaries()}
    root, seen = dialog_id, {dialog_id}
    while parents.get(root) in parents and parents[root] not in seen:
        root = parents[root]
        seen.add(root)
    return dialog_with_branches(center, root)


def divergences(center: Center, dialog_id: str, *, words: int = FIRST_WORDS) -> list[Divergence]:
    """The divergences of `dialog_id`'s family, by message index; `current` marks the way `dialog_id` goes."""
    dialogs = [d for d in (center.get_dialog(each) for each in family_ids(center, dialog_id)) if d is not None]
    shown = next((d for d in dialogs if d.id == dialog_id), None)
    return divergences_of(dialogs, shown, words=words)


def divergences_of(
    dialogs: Iterable[Dialog], shown: Dialog | None = None, *, words: int = FIRST_WORDS
) -> list[Divergence]:
    """The divergences among `dialogs` (any set of dialogs; normally one family), by index then age."""
    ordered = sorted(dialogs, key=lambda d: (d.created_at, d.id))
    root = _Node()
    for dialog in ordered:
        node = root
        for message in dialog.messages:
            child = node.children.get(message_key(message))
            if child is None:
                child = node.children[message_key(message)] = _Node(dialog, message)
            node = child
    on_path = _path(root, shown)
    found: list[tuple[int, float, Divergence]] = []
    stack: list[tuple[_Node, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        children = list(node.children.values())
        if len(children) > 1:
            alternatives = tuple(_alternative(child, depth, words) for child in children)
            current = next((n for n, child in enumerate(children) if child in on_path), -1)
            oldest = children[0].dialog.created_at if children[0].dialog is not None else 0.0
            found.append((depth, oldest, Divergence(depth, alternatives, current)))
        stack.extend((child, depth + 1) for child in children)
    found.sort(key=lambda item: (item[0], item[1]))
    return [divergence for _, _, divergence in found]


def _path(root: _Node, shown: Dialog | None) -> set[_Node]:
    path: set[_Node] = set()
    if shown is None:
        return path
    node = root
    for message in shown.messages:
        found = node.children.get(message_key(message))
        if found is None:
            break
        path.add(found)
        node = found
    return path


def _alternative(node: _Node, index: int, words: int) -> Alternative:
    assert node.dialog is not None and node.message is not None
    dialog, message = node.dialog, node.message
    provider_id, model_id = _who_answered(dialog, index)
    return Alternative(dialog.id, message.role, first_words(message, words), provider_id, model_id)


def _who_answered(dialog: Dialog, index: int) -> tuple[str, str]:
    """The model of the answer at `index` (or of the first answer after an edited question there)."""
    for position in range(index, dialog.message_count):
        message = dialog.message_at(position)
        if message.role is Role.ASSISTANT:
            provider, model = message.meta.get("provider_id"), message.meta.get("model_id")
            return (
                clean_line(provider if isinstance(provider, str) else dialog.provider_id, 80),
                clean_line(model if isinstance(model, str) else dialog.model_id, 80),
            )
    return clean_line(dialog.provider_id, 80), clean_line(dialog.model_id, 80)


def first_words(message: Message, words: int = FIRST_WORDS) -> str:
    """The beginning of a message on one line: its first `words` words, "…" when there is more."""
    text = message.content
    if not text.strip():
        calls = message.parsed_tool_calls()
        if calls:
            function = calls[0].get("function")
            name = function.get("name", "?") if isinstance(function, dict) else "?"
            return clean_line(f"(tool call {name})", 80)
        return "(reasoning only)" if message.reasoning else "(empty)"
    parts = [part for part in clean_line(text, 2000).split() if part.strip("#>*-`")]  # no bare Markdown marks
    shown = " ".join(parts[:words])
    return shown + (" …" if len(parts) > words else "")
