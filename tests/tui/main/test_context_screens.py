"""The context on the main screen at 80×24: the meter, the choice before a question that will not fit and after a
server's refusal, compaction into a branch with its ledger (jump to the parent, put back), pins, an answer's
tokens and cost, the cache-break note, and "in ~N" while a reply streams from a server that reports usage last."""

from __future__ import annotations

import asyncio

from textual.widgets import OptionList

from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text, wait_until
from visindigo.engine import Center, Skill
from visindigo.engine.context.compaction import ledger_of
from visindigo.engine.providers import FinishPart, Pause, ProviderError, TextPart, UsagePart
from visindigo.tui.main.context import AnswerDetailsScreen, FitChoiceScreen, LedgerScreen

SIZE = (80, 24)
PAIRS = [(f"question {n} " + "word " * 30, f"answer {n}") for n in range(4)]


def windowed(center: Center, window: int) -> None:
    provider = center.get_provider("scripted")
    assert provider is not None
    provider.models[0].context_window = window


async def open_seeded(pilot: object, center: Center) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    screen = main_screen(app)
    await screen.open_dialog(seeded_dialog(center, PAIRS))
    await pilot.pause()  # type: ignore[attr-defined]


async def test_the_meter_shows_used_window_and_room_and_turns_amber_then_red() -> None:
    center = make_center([])
    windowed(center, 4096)
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await open_seeded(pilot, center)
        screen.status_line.refresh_now()
        meter = screen.status_line.meter
        assert meter.plain.startswith("ctx ~") and meter.plain.endswith("/4.1k +1k") and not meter.spans
        line = screen.status_line.render().plain
        assert len(line) <= 78 and line.endswith(meter.plain)  # at the right end, never cut
        used = int(meter.plain.split("~")[1].split("/")[0])
        windowed(center, int(used / 0.85))  # the same request now fills 85 % of the window
        screen.status_line.refresh_now()
        assert "text-warning" in str(screen.status_line.meter.spans[0].style)
        amber = screen.status_line.meter.plain
        assert amber.startswith("ctx ~") and amber.endswith(" alt+z compacts")  # a word, not only the colour
        windowed(center, int(used / 0.97))
        screen.status_line.refresh_now()
        assert "text-error" in str(screen.status_line.meter.spans[0].style)
        # red and amber are close in some themes (the colour-blind one's vermilion and orange) and the same
        # under NO_COLOR: the full window has a mark of its own
        assert screen.status_line.meter.plain.startswith("! ctx ~")
        windowed(center, 0)
        screen.status_line.refresh_now()
        assert "/unknown +1k" in screen.status_line.meter.plain


async def test_a_question_that_will_not_fit_asks_first_and_moving_out_sends_it_in_a_branch() -> None:
    center = make_center([answer("Fine, in the branch.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await open_seeded(pilot, center)
        original = screen.dialog
        meter = screen.workbench.context.meter(original)
        assert meter is not None
        window = meter.used + 30  # the dialog fits; with the question below it does not
        windowed(center, window)
        screen.composer.input.focus()
        await type_text(pilot, "long ")
        screen.composer.input.insert("long " * 39)  # (the other 195 keys typed cost 10 s)
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, FitChoiceScreen))
        assert f"window is {window:,}" in str(app.screen.query_one("#why").render())
        await pilot.press("escape")  # nothing sent, the question kept in the composer
        await wait_until(pilot, lambda: app.screen is screen)
        assert original.message_count == 8 and screen.composer.input.text.startswith("long long")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, FitChoiceScreen))
        await pilot.press("m")
        await wait_until(pilot, lambda: screen.dialog is not original)
        await settle(pilot)
        branch = screen.dialog
        assert branch.branch_from_id == original.id and original.message_count == 8
        assert ledger_of(branch.message_at(0)) is not None
        assert branch.message_at(branch.message_count - 2).content.startswith("long long")
        assert branch.last_message.content == "Fine, in the branch." and not screen.composer.input.text


async def test_a_servers_context_exceeded_is_one_message_with_the_same_choice_and_the_question_stays() -> None:
    refusal = ProviderError("request (724 tokens) exceeds the available context size (512 tokens)", status=400)
    center = make_center([[refusal], answer("It fits now.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "A question")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, FitChoiceScreen))
        why = str(app.screen.query_one("#why").render())
        assert "512" in why and "724" in why and "kept in the dialog" in why
        assert [m.content for m in screen.dialog.messages] == ["A question"]
        await pilot.press("s")  # send again as it is
        await settle(pilot)
        await wait_until(pilot, lambda: screen.dialog.message_count == 2)
        assert screen.dialog.last_message.content == "It fits now."


async def test_compact_pin_and_the_ledger_jump_to_the_parent_and_put_back() -> None:
    center = make_center([answer("Summary: four questions about words were asked.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await open_seeded(pilot, center)
        original = screen.dialog
        screen.pane.focus()
        await pilot.press("home")
        await pilot.press("p")  # pin the first question
        await pilot.pause()
        assert original.message_at(0).meta.get("pinned") is True
        assert "pinned" in str(screen.pane.views[0].query_one(".status").render())
        await pilot.press("alt+z")
        await wait_until(pilot, lambda: screen.dialog is not original)
        await settle(pilot)
        branch = screen.dialog
        summary = branch.message_at(0)
        assert "four questions" in summary.content and branch.message_at(1).content == original.message_at(0).content
        told = [n.message for n in app._notifications if n.message.startswith("A new branch")]
        assert told and "earlier messages summarised in it; the request" in told[-1] and " → " in told[-1]
        screen.pane.focus()
        await pilot.press("home")
        await pilot.press("l")
        assert await wait_until(pilot, lambda: isinstance(app.screen, LedgerScreen))
        options = app.screen.query_one(OptionList)
        assert options.option_count == 3 and "#2 assistant" in str(options.get_option_at_index(0).prompt)
        await pilot.press("enter")  # jump to the replaced answer in the parent
        await wait_until(pilot, lambda: screen.dialog is original)
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await screen.open_dialog(branch)
        screen.pane.focus()
        await pilot.press("home")
        await pilot.press("l")
        assert await wait_until(pilot, lambda: isinstance(app.screen, LedgerScreen))
        await pilot.press("b")  # put it back into the branch
        await wait_until(pilot, lambda: app.screen is screen and branch.message_count == 7)
        assert branch.message_at(2).content == "answer 0"


async def test_an_answers_tokens_cache_and_cost_and_the_dialogs_totals() -> None:
    turn = [TextPart("Cached answer."), UsagePart(1200, 30, 0, 1000), FinishPart("stop")]
    center = make_center([turn])
    provider = center.get_provider("scripted")
    assert provider is not None
    provider.models[0].extra["price"] = {"input": 1.0, "output": 10.0, "cached_input": 0.1}
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await settle(pilot)
        assert "cache 1000" in screen.status_line.content.plain
        assert "$0.0006" in screen.status_line.content.plain  # 200 × $1 + 1000 × $0.10 + 30 × $10 per million
        screen.pane.focus()
        await pilot.press("end")
        await pilot.press("i")
        assert await wait_until(pilot, lambda: isinstance(app.screen, AnswerDetailsScreen))
        shown = str(app.screen.query_one("#figures").render())
        assert "tokens in: 1,200" in shown and "read from the cache: 1,000" in shown
        assert "cost: $0.0006 (config price)" in shown


async def test_the_cache_break_note_says_what_broke_the_cached_prefix() -> None:
    first = [TextPart("one"), UsagePart(3000, 5, 0, 0, 2800), FinishPart("stop")]
    second = [TextPart("two"), UsagePart(3100, 5, 0, 0, 3000), FinishPart("stop")]
    center = make_center([first, second])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "first")
        await pilot.press("enter")
        await settle(pilot)
        screen.dialog.add_skill(Skill("terse", "Answer in one word."))
        await type_text(pilot, "second")
        await pilot.press("enter")
        await settle(pilot)
        notice = str(screen.pane.query("Notice").first().render())
        assert "prompt cache was broken" in notice and "system prompt changed" in notice and "2,800" in notice


async def test_while_streaming_from_a_server_that_reports_usage_last_in_shows_the_estimate() -> None:
    """Issue 25 item 6: "in 0" while streaming; the request's count (~) shows until the real figure."""
    halfway = asyncio.Event()
    turn = [TextPart("Part one. "), Pause(30, halfway), TextPart("Part two."), UsagePart(321, 4), FinishPart("stop")]
    center = make_center([turn])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "A question of some length")
        await pilot.press("enter")
        await asyncio.wait_for(halfway.wait(), 10)
        await pilot.pause()
        screen.status_line.refresh_now()
        streaming = screen.status_line.content.plain
        assert "in ~" in streaming and "in ~0 " not in streaming
        screen.cancel_run(screen.dialog.id)
        await wait_until(pilot, lambda: not screen.runs.is_running(screen.dialog.id))


async def test_automatic_compaction_makes_a_branch_says_so_and_sends_the_question_there() -> None:
    center = make_center([answer("Summary of the words."), answer("Answered in the branch.")])
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.5}
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await open_seeded(pilot, center)
        original = screen.dialog
        meter = screen.workbench.context.meter(original)
        assert meter is not None
        windowed(center, meter.used + 60)  # over half the window: due; it would still fit
        screen.composer.input.focus()
        await pilot.pause()
        await type_text(pilot, "next")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: screen.dialog is not original and screen.dialog.message_count > 4)
        assert await wait_until(pilot, lambda: not screen.runs.is_running(screen.dialog.id))
        branch = screen.dialog
        assert (
            "automatically" in branch.message_at(0).content and branch.last_message.content == "Answered in the branch."
        )
        assert any("compacted automatically" in n.message for n in app._notifications)
