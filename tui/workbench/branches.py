"""Branches: how regenerate and edit make new dialogs, and how the dialogs of one family relate.

Nothing here is visual (no Textual import), so the rules are tested directly. A *family* is one tree of
dialogs linked by `branch_from_id`; its members share a beginning and part where a branch was made. The
message pane asks `alternatives()` where the shown dialog parts from the others, to offer ◀ n/m ▶ there.
"""

from __future__ import annotations

from collections.abc import Iterable

from visindigo.engine import Center, Dialog, DialogSummary, Message
from visindigo.engine.branching import ASKING_ROLES as _ASKING
from visindigo.engine.branching import answer_cut as regenerate_cut
from visindigo.engine.branching import common_prefix, keep_answering_model, same_message
from visindigo.engine.record import record

__all__ = [
    "DeletePlan",
    "TreeIndex",
    "alternatives",
    "common_prefix",
    "edit",
    "regenerate",
    "regenerate_cut",
    "same_message",
]


@record(frozen=True, slots=True)
class DeletePlan:
    """What deleting a dialog takes with it (its branches move up to its parent), for the question before."""

    title: str
    message_count: int
    branch_count: int


# --- making branches ---------------------------------------------------------------------------------------


def regenerate(center: Center, dialog: Dialog, index: int | None = None) -> Dialog | None:
    """The branch to run for "regenerate", or None when there is no answer to replace (run in place).

    The cut is `engine.branching.answer_cut` (`regenerate_cut` here), which a comparison's regenerate uses too.
    """
    cut = regenerate_cut(dialog, index)
    if cut >= dialog.message_count:
        return None
    branch = center.branch_at(dialog, cut)
    keep_answering_model(dialog, cut)
    return branch


def edit(center: Center, dialog: Dialog, index: int, text: str) -> Dialog:
    """A branch in which the user's message at `index` says `text` instead; nothing after it is kept.

    Raises ValueError for an index that is not a message the user wrote.
    """
    original = dialog.message_at(index)
    if original.role not in _ASKING:
        raise ValueError("only a message you wrote can be edited")
    child = center.branch_at(dialog, index)
    child.append_message(Message(original.role, text, name=original.name, images=original.images))
    # The edited question names its branch (the parent's title would make the two read alike); renaming wins.
    from visindigo.engine.storage.rows import make_title

    child.title = make_title(text) or child.title
    return child


# --- the family tree ---------------------------------------------------------------------------------------


@record(frozen=True, slots=True)
class TreeIndex:
    """Parent and children of every dialog, from summaries (no messages loaded)."""

    summaries: dict[str, DialogSummary]
    children: dict[str, list[str]]
    roots: list[str]
    _ordinals: dict[str, int] | None = None

    @classmethod
    def build(cls, summaries: Iterable[DialogSummary]) -> TreeIndex:
        by_id = {s.id: s for s in summaries}
        ordered = sorted(by_id.values(), key=lambda s: (s.created_at, s.id))
        children: dict[str, list[str]] = {s.id: [] for s in ordered}
        roots: list[str] = []
        for summary in ordered:
            parent = summary.branch_from_id
            if parent and parent in by_id and parent != summary.id and not _is_cycle(by_id, summary.id):
                children[parent].append(summary.id)
            else:
                roots.append(summary.id)
        return cls(by_id, children, roots)

    def parent(self, dialog_id: str) -> str | None:
        summary = self.summaries.get(dialog_id)
        if summary is None or dialog_id in self.roots:
            return None
        return summary.branch_from_id or None

    def siblings(self, dialog_id: str) -> list[str]:
        """The dialog and its siblings in order (roots are siblings of each other)."""
        parent = self.parent(dialog_id)
        return list(self.children[parent] if parent else self.roots)

    def sibling(self, dialog_id: str, step: int) -> str | None:
        siblings = self.siblings(dialog_id)
        if dialog_id not in siblings:
            return None
        position = siblings.index(dialog_id) + step
        return siblings[position] if 0 <= position < len(siblings) else None

    def root_of(self, dialog_id: str) -> str:
        seen = set()
        current = dialog_id
        while (parent := self.parent(current)) is not None and parent not in seen:
            seen.add(current)
            current = parent
        return current

    def family(self, dialog_id: str) -> list[str]:
        """Every dialog of the tree `dialog_id` belongs to, the root first."""
        result: list[str] = []
        stack = [self.root_of(dialog_id)]
        while stack:
            current = stack.pop()
            result.append(current)
            stack.extend(reversed(self.children.get(current, [])))
        return result

    def ordinal(self, dialog_id: str) -> int:
        """1 for the dialog a family started from; 2, 3, … for its branches in the order they were made.

        Numbered across the whole family (not per parent), so a branch of a branch never repeats a number.
        """
        return self.ordinals().get(dialog_id, 1)

    def ordinals(self) -> dict[str, int]:
        cached = self._ordinals
        if cached is None:
            cached = {}
            for root in self.roots:
                members = sorted(self.family(root), key=lambda i: (self.summaries[i].created_at, i))
                members.remove(root)
                cached[root] = 1
                cached.update((member, number) for number, member in enumerate(members, start=2))
            object.__setattr__(self, "_ordinals", cached)
        return cached


def _is_cycle(by_id: dict[str, DialogSummary], start: str) -> bool:
    """Whether following branch_from_id from `start` comes back to it (a damaged store must not hang us)."""
    seen = {start}
    current = by_id[start].branch_from_id
    while current and current in by_id:
        if current in seen:
            return True
        seen.add(current)
        current = by_id[current].branch_from_id
    return False


# --- where branches part -----------------------------------------------------------------------------------


def alternatives(dialog: Dialog, family: Iterable[Dialog]) -> dict[int, list[Dialog]]:
    """For each message index where members of the family part from `dialog`, the choices there.

    Each list holds `dialog` itself and one dialog per different message at that index (the oldest with
    that message), oldest first, so stepping through it with ◀ ▶ visits each distinct alternative once.
    Indexes without alternatives are absent.
    """
    mine = dialog.messages
    candidates: dict[int, dict[tuple[object, ...], Dialog]] = {}
    for other in sorted(family, key=lambda d: (d.created_at, d.id)):
        if other.id == dialog.id:
            continue
        theirs = other.messages
        shared = common_prefix(mine, theirs)
        if shared >= len(theirs) or shared >= len(mine):
            continue  # one merely continues the other (or is a copy): not an alternative at any index
        message = theirs[shared]
        key = (message.role, message.content, message.tool_calls, message.name)
        if key == (mine[shared].role, mine[shared].content, mine[shared].tool_calls, mine[shared].name):
            continue
        candidates.setdefault(shared, {}).setdefault(key, other)
    result: dict[int, list[Dialog]] = {}
    for index, by_message in candidates.items():
        choices = [dialog, *by_message.values()]
        result[index] = sorted(choices, key=lambda d: (d.created_at, d.id))
    return result
