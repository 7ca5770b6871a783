"""Scores from picks: wins, losses and an Elo-style rating per model, overall and per tag; CSV export.

Ratings start at 1000 and move by K = 32 per game. Picks are taken in time order; a pick among n answers counts
as the winner beating each loser, every game of one pick computed from the ratings before it (so the order of the
losers does not matter). A model is a provider and a model id: the same id served by two providers is two rows,
because the serving (quantisation, settings) can differ. A loser that is the winner's own model (a model compared
with itself) is not a game.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass

from ..sanitize import clean_line
from .picks import Pick

START_RATING = 1000.0
K_FACTOR = 32.0
#: What the CSV calls the scores over every pick (a tag can never be this: tags are names).
OVERALL = "(all)"
CSV_HEADER = ("scope", "provider", "model", "wins", "losses", "rating")


@dataclass
class ModelScore:
    """One model's record over a set of picks."""

    provider_id: str
    model_id: str
    wins: int = 0
    losses: int = 0
    rating: float = START_RATING

    @property
    def games(self) -> int:
        return self.wins + self.losses

    @property
    def label(self) -> str:
        """The model as shown: its id (clean, one line), or the provider's default model."""
        return clean_line(self.model_id, 80) or "(default model)"


def expected_score(rating: float, opponent: float) -> float:
    """The chance Elo gives `rating` of beating `opponent`."""
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def compute_scores(picks: Iterable[Pick], *, tag: str | None = None) -> list[ModelScore]:
    """The scores over `picks` (only those of `tag` when given), best rating first."""
    table: dict[tuple[str, str], ModelScore] = {}

    def entry(key: tuple[str, str]) -> ModelScore:
        if key not in table:
            table[key] = ModelScore(*key)
        return table[key]

    for pick in sorted(picks, key=lambda p: (p.created_at, p.id)):
        if tag is not None and pick.tag != tag:
            continue
        winner = entry(pick.winner.key)
        losers = [entry(loser.key) for loser in pick.losers if loser.key != pick.winner.key]
        changes = {id(winner): 0.0}
        for loser in losers:
            gain = K_FACTOR * (1.0 - expected_score(winner.rating, loser.rating))
            changes[id(winner)] += gain
            changes[id(loser)] = changes.get(id(loser), 0.0) - gain
        winner.wins += len(losers)
        for loser in losers:
            loser.losses += 1
        for score in {id(s): s for s in (winner, *losers)}.values():
            score.rating += changes[id(score)]
    return sorted(table.values(), key=lambda s: (-s.rating, -s.wins, s.model_id, s.provider_id))


def pick_tags(picks: Iterable[Pick]) -> list[str]:
    """The tags that picks were made under, sorted (no "" : untagged picks count only overall)."""
    return sorted({pick.tag for pick in picks if pick.tag})


def scores_csv(picks: Iterable[Pick], *, tag: str | None = None) -> str:
    """The scores as CSV: the overall table, then one per tag (or only `tag`'s). Ratings have one decimal.

    A cell that a spreadsheet would run as a formula (a model id beginning with = + - @) is prefixed with ', so
    opening the file cannot run anything a model list or a config put there.
    """
    chosen = list(picks)
    scopes = [tag] if tag is not None else [None, *pick_tags(chosen)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for scope in scopes:
        for score in compute_scores(chosen, tag=scope):
            writer.writerow(
                [
                    _cell(OVERALL if scope is None else scope),
                    _cell(score.provider_id),
                    _cell(score.model_id),
                    score.wins,
                    score.losses,
                    f"{score.rating:.1f}",
                ]
            )
    return out.getvalue()


def _cell(text: str) -> str:
    text = clean_line(text, 200)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
