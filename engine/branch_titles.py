"""What tells a branch apart from the dialog it came from, for the tree and the Markdown export.

A regenerated branch starts as a copy of its parent, title included, so "S-Tab", "② S-Tab" and "③ S-Tab"
would read alike. A branch with a title of its own (an edited question names its branch, and a rename always
wins) is told apart by that title; one that still has its parent's title is told apart by what differs: the
model, when it is not the parent's, and when it was made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class _DialogLike(Protocol):
    """A `Dialog` or a `DialogSummary`: both name their title, model, parent and creation time."""

    @property
    def title(self) -> str: ...
    @property
    def model_id(self) -> str: ...
    @property
    def created_at(self) -> float: ...


@dataclass(frozen=True, slots=True)
class BranchDifference:
    """What a branch that kept its parent's title differs in: `model` ("" when the same) and `created_at`."""

    model: str
    created_at: float


def branch_difference(branch: _DialogLike, parent: _DialogLike | None) -> BranchDifference | None:
    """None when the branch's own title tells it apart (or it is no branch); otherwise what differs."""
    if parent is None or branch.title != parent.title:
        return None
    model = branch.model_id if branch.model_id and branch.model_id != parent.model_id else ""
    return BranchDifference(model, branch.created_at)
