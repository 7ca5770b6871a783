"""Comparing models: one question to several models side by side, the chosen answer becomes the branch.

`Comparison` makes the branches and runs them (see `comparison.py` for the API a front end uses); `picks`,
`scores`, `divergence` and `markdown` hold what is built on top: the recorded choices, the ratings, where a
family of dialogs parts, and how an export shows a comparison.
"""

from .comparison import BLIND_LABELS, Column, ColumnEvent, CompareError, Comparison, ModelChoice
from .picks import Pick, PickedModel, comparison_tag

__all__ = [
    "BLIND_LABELS",
    "Column",
    "ColumnEvent",
    "CompareError",
    "Comparison",
    "ModelChoice",
    "Pick",
    "PickedModel",
    "comparison_tag",
]
