"""The main screen's keys for looking back: alt+d diffs the alternatives, alt+w lists where the answers part
and jumps, alt+k shows the scores; each is also in the command palette."""

from __future__ import annotations

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text, wait_until
from tests.tui.screens_host import screen_text
from visindigo.engine.compare import Pick, PickedModel
from visindigo.tui.compare.diff import DiffScreen
from visindigo.tui.compare.divergences import DivergenceList, DivergenceScreen
from visindigo.tui.compare.scores import ScoresScreen
from visindigo.tui.main.screen import MainScreen


async def ask_and_regenerate(pilot: object, screen: MainScreen) -> None:
    await type_text(pilot, "Why is the sky blue?")  # type: ignore[arg-type]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    await pilot.press("ctrl+r")  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]


async def test_alt_d_diffs_the_two_answers_at_the_branch_point() -> None:
    app = make_app([answer("The sky is blue by scattering."), answer("The sky looks blue by scattering.")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await ask_and_regenerate(pilot, screen)
        await pilot.press("alt+d")
        assert await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen))  # a worker waits on the modal
        diff = app.screen
        assert isinstance(diff, DiffScreen)
        assert [c.text for c in diff.choices] == ["The sky is blue by scattering.", "The sky looks blue by scattering."]
        assert "Alternatives at message 2" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_alt_w_lists_the_points_and_enter_opens_the_other_way_there() -> None:
    app = make_app([answer("first answer"), answer("second answer")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await ask_and_regenerate(pilot, screen)
        second = screen.dialog
        first_id = second.branch_from_id
        await pilot.press("alt+w")
        assert await wait_until(pilot, lambda: isinstance(app.screen, DivergenceScreen))
        listing = app.screen.query_one(DivergenceList)
        assert listing.highlighted == 2  # the shown dialog's way (● 2), under the heading
        await pilot.press("up", "enter")
        assert await wait_until(pilot, lambda: app.screen is screen and screen.dialog.id == first_id)
        await pilot.pause()
        assert screen.dialog.id == first_id
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        assert screen.focused is screen.pane


async def test_alt_k_shows_the_scores_and_the_palette_has_all_three() -> None:
    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        screen.center.record_pick(
            Pick("q", PickedModel("a", "scripted", "model-a"), (PickedModel("b", "scripted", "model-b"),), 1.0)
        )
        await pilot.press("alt+k")
        assert await wait_until(pilot, lambda: isinstance(app.screen, ScoresScreen))
        assert "model-a" in screen_text(app) and "1016.0" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        titles = {title: help_text for title, help_text, _ in screen.palette_commands()}
        assert titles["Diff alternatives"].endswith("(alt+d)")
        assert titles["Where the answers part"].endswith("(alt+w)")
        assert titles["Scores"].endswith("(alt+k)")


async def test_alt_d_without_alternatives_says_so() -> None:
    app = make_app([answer("only one")])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "q")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("alt+d")
        await settle(pilot)
        assert app.screen is screen
        assert any("No alternatives to compare" in n.message for n in app._notifications)
