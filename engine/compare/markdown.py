"""How the Markdown export shows a comparison: one section, each model's answer under its name.

A comparison leaves nothing but branches (that is its point), so the export recognises one from the branches
themselves: two or more branches of one dialog, cut at the same message, made within `COMPARISON_WINDOW`
seconds of each other (a comparison makes all of its branches at once; a person regenerating does not), and
answered by at least two different models. The pick, when one was made, is named in the section.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..branching import common_prefix
from ..dialog import Dialog
from ..message import Message, Role
from ..sanitize import clean_line
from .picks import Pick

#: Branches of one dialog made this close together (seconds) were made by one comparison.
COMPARISON_WINDOW = 5.0

MessageRenderer = Callable[[Message, int], list[str]]


@dataclass(frozen=True, slots=True)
class ComparisonGroup:
    """The branches one comparison made: `members` (in creation order) of `parent`, answers from `cut` on."""

    parent: Dialog
    cut: int
    members: tuple[Dialog, ...]


def answered_by(dialog: Dialog, cut: int) -> str:
    """The model that answered in `dialog` after `cut` (the answer's record), else the dialog's choice."""
    for index in range(cut, dialog.message_count):
        message = dialog.message_at(index)
        model = message.meta.get("model_id")
        if message.role is Role.ASSISTANT and isinstance(model, str) and model:
            return clean_line(model, 80)
    return clean_line(dialog.model_id or dialog.provider_id or "default model", 80)


def comparison_groups(dialogs: Sequence[Dialog]) -> list[ComparisonGroup]:
    """The comparisons among `dialogs` (an export's dialog and its branches)."""
    by_id = {dialog.id: dialog for dialog in dialogs}
    children: dict[str, list[Dialog]] = {}
    for dialog in dialogs:
        if dialog.branch_from_id in by_id:
            children.setdefault(dialog.branch_from_id, []).append(dialog)
    groups: list[ComparisonGroup] = []
    for parent_id, branches in children.items():
        parent = by_id[parent_id]
        parent_messages = parent.messages
        clusters: list[tuple[int, list[Dialog]]] = []
        for branch in sorted(branches, key=lambda d: (d.created_at, d.id)):
            cut = common_prefix(branch.messages, parent_messages)
            for cluster_cut, members in clusters:
                if cluster_cut == cut and branch.created_at - members[0].created_at <= COMPARISON_WINDOW:
                    members.append(branch)
                    break
            else:
                clusters.append((cut, [branch]))
        for cut, members in clusters:
            if len(members) >= 2 and len({answered_by(member, cut) for member in members}) >= 2:
                groups.append(ComparisonGroup(parent, cut, tuple(members)))
    return groups


def comparison_markdown(group: ComparisonGroup, picks: Sequence[Pick], render: MessageRenderer) -> str:
    """The section of one comparison: what was asked, then each model's answer (and what followed it)."""
    members = group.members
    models = [answered_by(member, group.cut) for member in members]
    labels = [
        f"{model} · {clean_line(member.provider_id, 40)}" if models.count(model) > 1 and member.provider_id else model
        for model, member in zip(models, members, strict=True)
    ]
    ids = {member.id for member in members}
    chosen = next((pick for pick in reversed(picks) if pick.winner.dialog_id in ids), None)
    parent = group.parent
    title = clean_line(parent.title, 200) or "Untitled dialog"
    lines = [f"# {title} · comparison of {len(members)} answers", ""]
    lines.append(f"- Branches of: {title} (`{parent.id[:8]}`), answers from message {group.cut + 1}")
    question = _question(parent, group.cut)
    if question:
        lines.append(f"- Question: {question}")
    lines.append(f"- Models: {', '.join(labels)}")
    if chosen is not None:
        winner = labels[[member.id for member in members].index(chosen.winner.dialog_id)]
        lines.append(f"- Chosen: {winner}{' (blind)' if chosen.blind else ''}")
    else:
        lines.append("- Chosen: none")
    lines.append("")
    for member, label in zip(members, labels, strict=True):
        mark = " · chosen" if chosen is not None and chosen.winner.dialog_id == member.id else ""
        lines += [f"## {label}{mark}", "", f"- Id: `{member.id}`", ""]
        for index in range(group.cut, member.message_count):
            lines += render(member.message_at(index), 3)
    return "\n".join(lines).rstrip()


def _question(parent: Dialog, cut: int) -> str:
    for index in range(min(cut, parent.message_count) - 1, -1, -1):
        message = parent.message_at(index)
        if message.role in (Role.USER, Role.PROMPT):
            return clean_line(message.content, 200)
    return ""
