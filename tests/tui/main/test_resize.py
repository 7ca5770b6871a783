"""Resizing the terminal never crashes the app, idle or while a reply streams (a tmux pane split does this)."""

from __future__ import annotations

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.engine.providers import FinishPart, Pause, TextPart

WIDTHS = (200, 120, 60, 100, 20, 80, 40, 120, 20, 200, 60)


async def test_resizing_between_every_width_while_idle_keeps_the_app_running() -> None:
    app = make_app([answer("Hello there, " * 30)])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await settle(pilot)
        for width in WIDTHS:
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            await pilot.pause()
            assert app.is_running
            assert app.size.width == width
        assert screen.dialog.message_count == 2
        assert app.return_code is None


async def test_resizing_between_every_width_while_streaming_keeps_the_reply_coming() -> None:
    turn = [TextPart("one " * 20), Pause(0.4), TextPart("two " * 20), Pause(0.4), TextPart("three"), FinishPart("stop")]
    app = make_app([turn])
    async with app.run_test(size=(200, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        for width in WIDTHS:
            await pilot.resize_terminal(width, 24)
            await pilot.pause(0.05)
            assert app.is_running
        await settle(pilot)
        assert screen.dialog.message_at(1).content.endswith("three")
        assert app.return_code is None


async def test_the_composer_shrunk_to_nothing_renders_its_placeholder_without_failing() -> None:
    """The crash: rich's chop_cells got width 0 from the composer's placeholder (range() arg 3 must not be zero)."""
    app = make_app([])
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.resize_terminal(60, 30)
        await pilot.pause()
        await pilot.resize_terminal(8, 10)
        await pilot.pause()
        await pilot.resize_terminal(1, 5)
        await pilot.pause()
        assert app.is_running
