"""The two other ways out of the choice before a question that will not fit (issue 27): `c` compacts the dialog
into a branch with a model-written summary and asks there; `s` sends the whole dialog as it is, nothing cut.
After a server's refusal, `c` compacts and asks the question kept in the dialog again, in the branch."""

from __future__ import annotations

from textual.pilot import Pilot

from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text, wait_until
from visindigo.engine import Center, Dialog
from visindigo.engine.context.compaction import ledger_of
from visindigo.engine.providers import ProviderError
from visindigo.engine.providers.scripted import Script, ScriptedAdapter
from visindigo.tui.main.context import FitChoiceScreen
from visindigo.tui.main.screen import MainScreen

SIZE = (80, 24)
PAIRS = [(f"question {n} " + "word " * 30, f"answer {n}") for n in range(4)]


def recording(center: Center, script: Script) -> ScriptedAdapter:
    """Replace the scripted provider's adapter by one whose requests the test reads."""
    provider = center.get_provider("scripted")
    assert provider is not None
    adapter = ScriptedAdapter(script, models=provider.models)
    provider.attach_adapter(adapter)
    return adapter


async def ask_over_the_window(pilot: Pilot[None], center: Center) -> tuple[MainScreen, Dialog]:
    app = pilot.app
    screen = main_screen(app)
    await screen.open_dialog(seeded_dialog(center, PAIRS))
    await pilot.pause()
    original = screen.dialog
    meter = screen.workbench.context.meter(original)
    assert meter is not None
    provider = center.get_provider("scripted")
    assert provider is not None
    provider.models[0].context_window = meter.used + 4  # the dialog fits; with the question it does not
    screen.composer.input.focus()
    await type_text(pilot, "long " * 10)
    await pilot.press("enter")
    assert await wait_until(pilot, lambda: isinstance(app.screen, FitChoiceScreen))
    return screen, original


async def test_c_compacts_into_a_branch_with_a_summary_and_asks_there() -> None:
    center = make_center([])
    adapter = recording(center, [answer("Summary: four questions about words."), answer("Answered in the branch.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen, original = await ask_over_the_window(pilot, center)
        await pilot.press("c")
        assert await wait_until(pilot, lambda: screen.dialog is not original)
        assert await wait_until(pilot, lambda: screen.dialog.last_message.content == "Answered in the branch.")
        await settle(pilot)
        branch = screen.dialog
        assert branch.branch_from_id == original.id and original.message_count == 8  # the parent is untouched
        summary = branch.message_at(0)
        assert "four questions" in summary.content and ledger_of(summary) is not None
        assert branch.message_at(branch.message_count - 2).content.startswith("long long")
        assert len(adapter.requests) == 2  # the summary, then the question in the branch
        asked = [m.content for m in adapter.requests[1].messages]
        assert asked[0] == summary.content and asked[-1].startswith("long long")
        assert "question 0 word" not in " ".join(asked)  # the replaced turns were not sent
        assert not screen.composer.input.text


async def test_s_sends_the_whole_dialog_as_it_is_nothing_cut() -> None:
    center = make_center([])
    adapter = recording(center, [answer("Sent as it was.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen, original = await ask_over_the_window(pilot, center)
        await pilot.press("s")
        assert await wait_until(pilot, lambda: original.message_count == 10)
        await settle(pilot)
        assert screen.dialog is original and original.last_message.content == "Sent as it was."
        asked = [m.content for m in adapter.requests[0].messages]
        assert len(asked) == 9 and asked[0].startswith("question 0") and asked[-1].startswith("long long")


async def test_after_a_refusal_c_compacts_and_asks_the_kept_question_in_the_branch() -> None:
    refusal = ProviderError("request (724 tokens) exceeds the available context size (512 tokens)", status=400)
    center = make_center([])
    adapter = recording(center, [[refusal], answer("Summary: four questions."), answer("It fits in the branch.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(seeded_dialog(center, PAIRS))
        await pilot.pause()
        original = screen.dialog
        screen.composer.input.focus()
        await type_text(pilot, "The last question")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: isinstance(app.screen, FitChoiceScreen))
        await pilot.press("c")
        assert await wait_until(pilot, lambda: screen.dialog is not original)
        assert await wait_until(pilot, lambda: screen.dialog.last_message.content == "It fits in the branch.")
        await settle(pilot)
        branch = screen.dialog
        assert original.last_message.content == "The last question"  # kept in the dialog it was asked in
        assert ledger_of(branch.message_at(0)) is not None
        assert branch.message_at(branch.message_count - 2).content == "The last question"
        assert [m.content for m in adapter.requests[2].messages][-1] == "The last question"


async def test_the_palette_compacts_and_alt_o_moves_the_oldest_turns_out_without_a_model() -> None:
    center = make_center([])
    adapter = recording(center, [answer("Summary: the words were discussed.")])
    app = make_app(center=center)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(seeded_dialog(center, PAIRS))
        await pilot.pause()
        original = screen.dialog
        await pilot.press("ctrl+p")
        await type_text(pilot, "compact into a branch")
        await pilot.pause(0.3)
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: screen.dialog is not original)
        await settle(pilot)
        compacted = screen.dialog
        assert "the words were discussed" in compacted.message_at(0).content and len(adapter.requests) == 1
        await screen.open_dialog(original)
        await pilot.pause()
        await pilot.press("alt+o")
        assert await wait_until(pilot, lambda: screen.dialog not in (original, compacted))
        await settle(pilot)
        moved = screen.dialog
        ledger = ledger_of(moved.message_at(0))
        assert moved.branch_from_id == original.id and ledger is not None and ledger["replaced"]
        assert moved.message_count < original.message_count == 8
        assert len(adapter.requests) == 1  # moving out asks no model
