"""A comparison column's header figures: from the run's plain state, with the cost only when prices are known."""

from __future__ import annotations

from visindigo.engine import ModelInfo
from visindigo.tui.compare.header import HIDDEN, ColumnFigures, column_figures, header_content, price_of
from visindigo.tui.workbench import RunState


def test_prices_come_from_the_models_config_and_bad_ones_are_ignored() -> None:
    assert price_of(ModelInfo("m", extra={"price": {"input": 0.15, "output": 0.6}})) == (0.15, 0.6)
    assert price_of(ModelInfo("m", extra={"price": {"output": 2}})) == (0.0, 2.0)
    assert price_of(ModelInfo("m")) is None and price_of(None) is None
    assert price_of(ModelInfo("m", extra={"price": {"input": "cheap"}})) is None
    assert price_of(ModelInfo("m", extra={"price": {"input": -1, "output": 1}})) is None
    assert price_of(ModelInfo("m", extra={"price": 3})) is None


def test_a_streaming_run_shows_its_live_figures_and_a_finished_one_its_reported_usage() -> None:
    run = RunState("d", running=True, streaming=True, round=1, round_deltas=11, input_tokens=0)
    run.first_token_at, run.last_token_at = 10.0, 11.0
    live = column_figures("1", "m · P", run, first_token=0.25, price=(1.0, 2.0), now=11.0)
    assert (live.state, live.output_tokens, live.tokens_per_second) == ("streaming", 11, 10.0)
    assert live.cost == 11 * 2.0 / 1_000_000
    text = header_content(live).plain
    assert text.splitlines() == [" 1   ● streaming", "m · P", "first token 0.25 s · 10 tok/s · in 0 out 11 · $0.0000"]
    run.running = run.streaming = False
    run.outcome = "finished"
    done = column_figures("1", "m · P", run, usage=(40, 12))
    assert (done.state, done.input_tokens, done.output_tokens) == ("finished", 40, 12)
    assert "✓ done" in header_content(done).plain and "$" not in header_content(done).plain


def test_states_blind_and_the_pick() -> None:
    assert column_figures("A", HIDDEN, None).state == "ready"
    asking = column_figures("A", HIDDEN, RunState("d", running=True), asking=True)
    assert asking.state == "approval" and "asks to run a tool" in header_content(asking).plain
    failed = RunState("d", outcome="failed", error="boom")
    assert "✗ failed" in header_content(column_figures("B", "m", failed)).plain
    picked = header_content(ColumnFigures("C", "m", state="finished", picked=True)).plain
    assert "★ picked" in picked
    assert HIDDEN in header_content(ColumnFigures("A", HIDDEN)).plain


def test_a_cancelled_round_keeps_its_estimate_and_a_reported_round_its_count() -> None:
    """Issue 25 §14: a column cancelled mid-answer never gets usage; its header kept "in 0 out 0" while its text
    was on screen and stored. The estimate stays until a report replaces it."""
    run = RunState("d", running=True)
    run.begin_round(1.0)
    run.round_deltas = 37
    run.running = run.streaming = False
    run.outcome = "cancelled"
    cancelled = column_figures("1", "m", run)
    assert (cancelled.state, cancelled.output_tokens) == ("cancelled", 37)
    run.begin_round(2.0)  # a new round starts from nothing; a reported one shows the server's count
    run.round_deltas, run.output_tokens, run.round_reported = 40, 12, True
    assert column_figures("1", "m", run).output_tokens == 12


def test_a_stream_without_words_yet_is_asking_not_streaming() -> None:
    """A failing column's 500s are retried inside an opened round: until a word arrives it is still asking."""
    run = RunState("d", running=True)
    run.begin_round(1.0)
    assert column_figures("1", "m", run).state == "starting"
    run.first_token_at = 1.5
    assert column_figures("1", "m", run).state == "streaming"
