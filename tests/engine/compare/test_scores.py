"""Scores: wins, losses and Elo (K=32, start 1000) per model, in time order, overall and per tag; CSV."""

from __future__ import annotations

import csv
import io

import pytest

from visindigo.engine.compare import Pick, PickedModel
from visindigo.engine.compare.scores import compute_scores, expected_score, pick_tags, scores_csv


def pick(when: float, winner: str, *losers: str, tag: str = "", provider: str = "p") -> Pick:
    return Pick(
        question_dialog_id="q",
        winner=PickedModel(f"d{when}-{winner}", provider, winner),
        losers=tuple(PickedModel(f"d{when}-{loser}", provider, loser) for loser in losers),
        created_at=when,
        tag=tag,
    )


def by_model(picks: list[Pick], **kwargs: str) -> dict[str, tuple[int, int, float]]:
    return {s.model_id: (s.wins, s.losses, round(s.rating, 2)) for s in compute_scores(picks, **kwargs)}


def test_one_pick_between_equals_moves_each_by_half_of_k() -> None:
    assert by_model([pick(1, "a", "b")]) == {"a": (1, 0, 1016.0), "b": (0, 1, 984.0)}


def test_the_second_game_uses_the_ratings_the_first_left() -> None:
    # after the first game a is 1016 and b 984: a was expected to win with 1 / (1 + 10^(-32/400)) = 0.5459
    assert round(expected_score(1016, 984), 4) == 0.5459
    assert by_model([pick(1, "a", "b"), pick(2, "a", "b")]) == {"a": (2, 0, 1030.53), "b": (0, 2, 969.47)}
    # an upset moves more than an expected win
    assert by_model([pick(1, "a", "b"), pick(2, "b", "a")]) == {"a": (1, 1, 998.53), "b": (1, 1, 1001.47)}


def test_picks_count_in_time_order_not_in_the_order_given() -> None:
    in_order = by_model([pick(1, "a", "b"), pick(2, "b", "a")])
    assert by_model([pick(2, "b", "a"), pick(1, "a", "b")]) == in_order


def test_a_pick_among_four_is_the_winner_beating_each_of_the_three_from_the_ratings_before_it() -> None:
    scores = by_model([pick(1, "a", "b", "c", "d")])
    assert scores == {"a": (3, 0, 1048.0), "b": (0, 1, 984.0), "c": (0, 1, 984.0), "d": (0, 1, 984.0)}
    assert compute_scores([pick(1, "a", "b", "c", "d")])[0].model_id == "a"  # best first


def test_a_model_compared_with_itself_plays_no_game() -> None:
    assert by_model([pick(1, "a", "a", "b")]) == {"a": (1, 0, 1016.0), "b": (0, 1, 984.0)}


def test_the_same_model_id_at_two_providers_is_two_entries() -> None:
    picks = [
        Pick("q", PickedModel("d1", "openai", "gpt-4o"), (PickedModel("d2", "router", "gpt-4o"),), 1.0),
    ]
    rows = {(s.provider_id, s.model_id): (s.wins, s.losses) for s in compute_scores(picks)}
    assert rows == {("openai", "gpt-4o"): (1, 0), ("router", "gpt-4o"): (0, 1)}


def test_scores_per_tag_count_only_that_tags_picks() -> None:
    picks = [
        pick(1, "a", "b", tag="sql"),
        pick(2, "b", "a", tag="poetry"),
        pick(3, "b", "a", tag="poetry"),
        pick(4, "a", "b"),
    ]
    assert pick_tags(picks) == ["poetry", "sql"]
    assert by_model(picks, tag="sql") == {"a": (1, 0, 1016.0), "b": (0, 1, 984.0)}
    assert by_model(picks, tag="poetry")["b"][:2] == (2, 0)
    assert by_model(picks)["a"][:2] == (2, 2)
    assert compute_scores(picks, tag="nothing") == []


def test_csv_has_the_overall_table_then_each_tag_and_defuses_formulas() -> None:
    picks = [pick(1, "=HYPERLINK(\"x\")", "b", tag="sql"), pick(2, "b", "-2+3")]
    rows = list(csv.reader(io.StringIO(scores_csv(picks))))
    assert rows[0] == ["scope", "provider", "model", "wins", "losses", "rating"]
    scopes = [row[0] for row in rows[1:]]
    assert scopes == ["(all)", "(all)", "(all)", "sql", "sql"]
    models = {row[2] for row in rows[1:]}
    assert models == {"'=HYPERLINK(\"x\")", "b", "'-2+3"}
    assert rows[-1][3:] == ["0", "1", "984.0"]
    only = list(csv.reader(io.StringIO(scores_csv(picks, tag="sql"))))
    assert [row[0] for row in only[1:]] == ["sql", "sql"]


@pytest.mark.parametrize("count", [0, 1])
def test_no_picks_give_no_rows(count: int) -> None:
    picks = [pick(1, "a", tag="t")][:count]  # a pick with no loser is no game either
    assert scores_csv(picks).splitlines()[1:] == ([] if not count else ["(all),p,a,0,0,1000.0", "t,p,a,0,0,1000.0"])
