"""The workbench's context actions without a screen: the meter's figures, pins, compaction into a branch in the
tree, putting a replaced message back, one answer's figures and the dialog's totals of cache and cost."""

from __future__ import annotations

from visindigo.engine import Dialog, Message, MessageUpdated, ModelInfo, Role
from visindigo.engine.context.compaction import ledger_of
from visindigo.engine.providers import FinishPart, TextPart, UsagePart
from visindigo.tui.workbench import Refused
from visindigo.tui.workbench import events as news
from visindigo.tui.workbench.context import Meter, meter_level

from .conftest import Bench


def windowed(bench: Bench, window: int, **extra: object) -> ModelInfo:
    provider = bench.center.get_provider("scripted")
    assert provider is not None
    model = provider.models[0]
    model.context_window = window
    model.extra.update(extra)
    return model


def long_dialog(bench: Bench, turns: int = 4, words: int = 50) -> Dialog:
    dialog = bench.center.create_dialog()
    for turn in range(turns):
        dialog.append_message(Role.USER, f"question {turn} " + "word " * words)
        dialog.append_message(
            Message(
                Role.ASSISTANT,
                f"answer {turn}",
                meta={"usage": {"input_tokens": 100, "output_tokens": 10, "cached_tokens": 60}},
            )
        )
    return dialog


def test_the_meter_counts_the_next_request_against_the_window_once_per_change() -> None:
    bench = Bench([])
    windowed(bench, 4096)
    dialog = long_dialog(bench)
    meter = bench.workbench.context.meter(dialog)
    assert meter is not None and meter.window == 4096 and meter.used > 0 and meter.room == 1024
    assert meter.status == "fits" and meter.window_source == "config"
    assert bench.workbench.context.meter(dialog) is meter  # nothing changed: not counted again
    dialog.append_message(Role.USER, "one more " * 40)
    again = bench.workbench.context.meter(dialog)
    assert again is not None and again.used > meter.used
    assert bench.workbench.status(dialog).meter == again


def test_the_meter_says_unknown_without_a_window_and_turns_amber_then_red() -> None:
    bench = Bench([])
    dialog = long_dialog(bench)
    meter = bench.workbench.context.meter(dialog)
    assert meter is not None and (meter.window, meter.status) == (0, "unknown") and meter_level(meter) == ""
    assert meter_level(Meter(790, 1000, 100, True, "tight")) == ""
    assert meter_level(Meter(800, 1000, 100, True, "tight")) == "warning"
    assert meter_level(Meter(950, 1000, 10, True, "tight")) == "error"
    assert meter_level(Meter(1200, 1000, 10, True, "over")) == "error"


def test_a_question_that_will_not_fit_is_told_before_sending() -> None:
    bench = Bench([])
    windowed(bench, 300)
    dialog = long_dialog(bench, turns=1, words=10)
    short = bench.workbench.context.fit_for(dialog, "short")
    assert short is not None and short.status != "over"
    fit = bench.workbench.context.fit_for(dialog, "long " * 400)
    assert fit is not None and fit.status == "over" and fit.used > 300


def test_pinning_marks_the_message_and_tells_the_panes() -> None:
    bench = Bench([])
    dialog = long_dialog(bench)
    assert bench.workbench.context.toggle_pin(dialog, 2) is True
    assert dialog.message_at(2).meta["pinned"] is True
    assert news.EngineEvent(dialog.id, MessageUpdated(2)) in bench.events
    assert bench.workbench.context.toggle_pin(dialog, 2) is False
    assert "pinned" not in dialog.message_at(2).meta


async def test_compacting_makes_a_branch_in_the_tree_and_a_replaced_message_can_be_found_and_put_back() -> None:
    bench = Bench([[TextPart("The user asked four questions about words."), FinishPart("stop")]])
    dialog = long_dialog(bench)
    bench.workbench.context.toggle_pin(dialog, 0)
    branch = await bench.workbench.context.compact(dialog)
    assert branch.branch_from_id == dialog.id and dialog.message_count == 8
    assert bench.center.has_dialog(dialog.id) and branch.id in bench.workbench.tree_index.summaries
    summary = branch.message_at(0)
    ledger = ledger_of(summary)
    assert ledger is not None and "four questions" in summary.content
    assert [e["position"] for e in ledger["replaced"]] == [1, 2, 3] and ledger["pinned"] == [0]
    assert [m.content for m in branch.messages[1:2]] == [dialog.message_at(0).content]  # the pin, word for word
    assert bench.workbench.context.find_replaced(branch, 2) == (dialog, 2)
    index = bench.workbench.context.put_back(branch, 2)
    assert branch.message_at(index).content == dialog.message_at(2).content
    try:
        bench.workbench.context.put_back(branch, 2)
    except Refused as refused:
        assert "already" in str(refused)
    else:
        raise AssertionError("putting a message back twice was not refused")


async def test_nothing_to_compact_is_refused_with_the_reason() -> None:
    bench = Bench([])
    dialog = long_dialog(bench, turns=1)
    try:
        await bench.workbench.context.compact(dialog, moved=True)
    except Refused as refused:
        assert "nothing to compact" in str(refused)
    else:
        raise AssertionError("compacting one turn was not refused")


def test_an_answer_s_figures_and_the_dialog_s_totals_of_cache_and_cost() -> None:
    bench = Bench([])
    windowed(bench, 8192, price={"input": 2.0, "output": 10.0, "cached_input": 0.5})
    dialog = long_dialog(bench, turns=2)
    for index in (1, 3):
        message = dialog.message_at(index)
        message.meta.update(provider_id="scripted", model_id="scripted-model")
        message.meta["usage"] = {**UsagePart(1000, 100, 0, 600).to_json(), "cache_write_tokens": 0}
        dialog.replace_message(index, message)
    lines = bench.workbench.context.answer_lines(dialog, 1)
    assert lines[0].startswith("tokens in: 1,000") and "  read from the cache: 600" in lines
    # 400 plain at $2/M, 600 cached at $0.50/M, 100 out at $10/M
    assert "cost: $0.0021 (config price)" in lines
    status = bench.workbench.status(dialog)
    assert (status.input_tokens, status.cached_tokens) == (2000, 1200)
    assert abs(status.cost - 0.0042) < 1e-9 and status.cost_unknown == 0
    assert bench.workbench.context.answer_lines(dialog, 0) == ["The server reported no usage for this message."]
