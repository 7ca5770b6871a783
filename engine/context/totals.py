"""Totals of answers: a dialog's, its branch family's (the root and every branch from it), or any group of them.

One rule for every place that adds answers up (the answer details in the app, `visindigo usage`): each answer
counts **once**, by the id the run loop gives it — a branch holds copies of its parent's answers, and a family
total that counted them again would bill one answer as many times as it was branched. Answers stored before
answers had ids are told apart by their whole usage record. Costs come from `prices.answer_cost`; an answer whose
price nobody knows is counted as unknown, never as free.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .prices import answer_cost
from .usage import AnswerUsage, answer_usage

if TYPE_CHECKING:
    from ..center import Center
    from ..dialog import Dialog
    from ..model_info import ModelInfo
    from ..provider import Provider

__all__ = ["Totals", "answer_identity", "dialog_totals", "family_totals", "priced_by"]

#: The provider and model of an answer, for its price (None: not configured).
PriceLookup = Callable[[AnswerUsage], "tuple[Provider | None, ModelInfo | None]"]


@dataclass
class Totals:
    """Answers added up: tokens in (the whole prompt, cache included), read from and written to the cache, out,
    reasoning; how many answers' figures are the client's estimate; the known cost and how many are unknown."""

    answers: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: int = 0
    cost: float = 0.0
    unknown_cost: int = 0
    #: Where the known costs came from ("config price", "local server", …).
    sources: set[str] = field(default_factory=set)
    #: How many dialogs the answers were read from (a family's size).
    dialogs: int = 0

    def add(self, usage: AnswerUsage, dollars: float | None, source: str = "") -> None:
        self.answers += 1
        self.input_tokens += usage.input_tokens
        self.cached_tokens += usage.cached_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.output_tokens += usage.output_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.estimated += usage.estimated
        if dollars is None:
            self.unknown_cost += 1
        else:
            self.cost += dollars
            if source:
                self.sources.add(source)

    def money(self) -> str:
        """The cost as a report says it: `$0.0123`, `$0.0123 + 2 unknown`, or `unknown` when no price is known."""
        if self.answers and self.unknown_cost == self.answers:
            return "unknown"
        known = f"${self.cost:,.4f}"
        return f"{known} + {self.unknown_cost} unknown" if self.unknown_cost else known


def answer_identity(usage: AnswerUsage, record: object) -> str:
    """What tells one answer from another across branches: its id, else (older answers) its usage record."""
    if usage.answer_id:
        return usage.answer_id
    return record if isinstance(record, str) else json.dumps(record, sort_keys=True, default=str)


def priced_by(center: Center) -> PriceLookup:
    """The lookup of an answer's provider and model among `center`'s (for its configured price)."""

    def lookup(usage: AnswerUsage) -> tuple[Provider | None, ModelInfo | None]:
        provider = center.get_provider(usage.provider_id) if usage.provider_id else None
        model = provider.get_model(usage.model_id) if provider is not None and usage.model_id else None
        return provider, model

    return lookup


def _tally(dialogs: Iterable[Dialog], lookup: PriceLookup) -> Totals:
    totals = Totals()
    seen: set[str] = set()
    for dialog in dialogs:
        totals.dialogs += 1
        for message in dialog.read_messages():
            usage = answer_usage(message)
            if usage is None:
                continue
            identity = answer_identity(usage, message.meta.get("usage"))
            if identity in seen:
                continue
            seen.add(identity)
            cost = answer_cost(usage, *lookup(usage))
            totals.add(usage, cost.dollars, cost.source)
    return totals


def dialog_totals(center: Center, dialog: Dialog) -> Totals:
    """What the answers of `dialog` (its whole history, copies from its parent included) used and cost."""
    return _tally([dialog], priced_by(center))


def family_totals(center: Center, dialog: Dialog) -> Totals:
    """What the answers of `dialog`'s branch family used and cost: its root and every branch from it, each answer
    once. Dialogs the Center cannot open (gone from the store) are left out."""
    from ..compare.divergence import family_ids  # the tree walk over metadata, shared with the divergences

    ids = family_ids(center, dialog.id)
    members = [dialog if each == dialog.id else center.get_dialog(each) for each in ids]
    return _tally([member for member in members if member is not None], priced_by(center))
