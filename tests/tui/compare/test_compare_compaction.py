"""Automatic compaction before a comparison, as the main screen does it before sending: when the question would
bring the dialog to the threshold of any compared model's window, the dialog is compacted into a branch and every
column answers there — against the loopback LLM server (a summary request, then one request per column)."""

from __future__ import annotations

from tests.llm_server import LLMServer, openai_stream
from tests.tui.compare.test_compare_columns import all_done, comparing
from tests.tui.compare_host import every_model, make_app, scripted_center, wait_until
from tests.tui.helpers import main_screen, seeded_dialog
from visindigo.engine import Center
from visindigo.engine.context.compaction import ledger_of
from visindigo.engine.context.fit import check_fit

PAIRS = [(f"question {n} about " + "many words " * 25, f"answer {n} " + "said at length " * 10) for n in range(4)]
SUMMARY = "Notes: four questions about words."


def compaction_center(server: LLMServer) -> Center:
    replies = every_model(count=3, delay=0.01)
    replies["m-delta"] = lambda: openai_stream([SUMMARY], usage=(300, 8))  # the summary model of [context]
    center = scripted_center(server, replies)
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.8, "summary_model": "m-delta"}
    return center


def narrow(center: Center, model: str, window: int) -> None:
    provider = center.get_provider("lab")
    assert provider is not None
    found = provider.get_model(model)
    assert found is not None
    found.context_window = window


async def test_a_comparison_over_one_models_threshold_is_asked_in_a_compacted_branch(llm_server: LLMServer) -> None:
    center = compaction_center(llm_server)
    original = seeded_dialog(center, PAIRS)
    original.provider_id, original.model_id = "lab", "m-alpha"
    app = make_app(center)
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        await main.open_dialog(original)
        await pilot.pause()
        narrow(center, "m-alpha", 100_000)
        fit = check_fit(center, original, "Which is best?", on=("lab", "m-beta"))
        assert fit is not None
        narrow(center, "m-beta", int(fit.used / 0.85))  # m-beta's window 85 % full with the question: due
        screen = await comparing(pilot, main, 2, question="Which is best?")
        await wait_until(pilot, lambda: all_done(screen.columns))

        assert original.message_count == 8  # the parent keeps no unanswered question
        compacted = center.get_dialog(screen.columns[0].dialog.branch_from_id)
        assert compacted is not None and compacted.branch_from_id == original.id
        summary = compacted.message_at(0)
        assert ledger_of(summary) is not None and SUMMARY in summary.content
        assert "automatically" in summary.content and "m-beta's window" in summary.content
        assert compacted.last_message.content == "Which is best?"
        posts = [r.json for r in llm_server.requests if r.method == "POST"]
        assert [body["model"] for body in posts[:1]] == ["m-delta"]  # the summary first, then the columns
        assert sorted(body["model"] for body in posts[1:]) == ["m-alpha", "m-beta"]
        for body in posts[1:]:  # each column got the same compacted context: the summary, not the old turns
            sent = " ".join(str(m["content"]) for m in body["messages"])
            assert SUMMARY in sent and "question 0 about" not in sent and sent.endswith("Which is best?")
        for column in screen.columns:
            assert column.dialog.branch_from_id == compacted.id and column.dialog.last_message.content
        assert any("compacted automatically" in n.message for n in app._notifications)


async def test_a_comparison_whose_compaction_declines_says_why_and_is_asked_as_it_is(llm_server: LLMServer) -> None:
    center = compaction_center(llm_server)
    original = seeded_dialog(center, [("hi", "ok"), *PAIRS[:2]])  # all but "hi"/"ok" is kept: too little to gain
    original.provider_id, original.model_id = "lab", "m-alpha"
    app = make_app(center)
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        await main.open_dialog(original)
        await pilot.pause()
        fit = check_fit(center, original, "And?")
        assert fit is not None
        narrow(center, "m-alpha", int(fit.used / 0.9))
        screen = await comparing(pilot, main, 2, question="And?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        assert all(column.dialog.branch_from_id == original.id for column in screen.columns)
        assert original.last_message.content == "And?"  # asked as it is, in the dialog it was typed in
        posts = [r.json for r in llm_server.requests if r.method == "POST"]
        assert "m-delta" not in [body["model"] for body in posts]  # no summary was asked for
        assert any("Automatic compaction: not compacted" in n.message for n in app._notifications)
