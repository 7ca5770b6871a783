"""Long dialogs through a window of views (issue 14 §1): Home and End in one step, a bounded number of views
however far the reader scrolls or however many replies arrive, and the keys working at either end."""

from __future__ import annotations

from typing import Any

from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text, wait_until
from visindigo.tui.chat.message_list import LaterMarker
from visindigo.tui.chat.view_window import FOLLOW_KEEP, LIMIT, STEP


def _indexes(screen: object) -> list[int]:
    return [v.index for v in screen.pane.views if v.index is not None]  # type: ignore[attr-defined]


async def _open_at_home(app: object, pilot: object, dialog: object) -> object:
    """Open `dialog` and press Home in its messages; the main screen."""
    screen = main_screen(app)  # type: ignore[arg-type]
    await screen.open_dialog(dialog)  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]
    screen.pane.focus()
    await pilot.press("home")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    return screen


async def test_home_and_end_reach_either_end_of_a_2000_message_dialog_in_one_step() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(1000)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = await _open_at_home(app, pilot, dialog)
        assert _indexes(screen) == list(range(STEP))
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 0
        assert screen.pane.scroll_y == 0
        later = screen.pane.query_one(LaterMarker)
        assert later.display and "1,960 later messages" in str(later.render())
        await pilot.press("end")
        await settle(pilot)
        assert _indexes(screen) == list(range(2000 - STEP, 2000))
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1999
        assert not screen.pane.query_one(LaterMarker).display


async def test_moving_through_a_long_dialog_keeps_at_most_the_limit_of_views() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(100)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await pilot.pause()
        for _ in range(6):  # up past the top of the window, batch by batch (as scrolling to the top does)
            await screen.pane.load_earlier()
            await pilot.pause()
            assert len(screen.pane.views) <= LIMIT
        assert _indexes(screen)[0] == 0 and len(_indexes(screen)) == LIMIT
        screen.pane.focus()
        screen.pane.select_view(screen.pane.views[-1])
        await pilot.press("down")  # the cursor past the last view moves the window on
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == LIMIT
        assert len(screen.pane.views) <= LIMIT and _indexes(screen)[-1] == LIMIT + STEP - 1


async def test_replies_in_one_dialog_keep_a_bounded_window_while_following() -> None:
    app = make_app([answer(f"answer {n}") for n in range(22)])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "question 0")
        for n in range(22):
            if n:
                screen.composer.input.load_text(f"question {n}")  # (typed once above: 240 key presses cost 12 s)
            await pilot.press("enter")
            await settle(pilot)
        assert screen.dialog.message_count == 44
        assert _indexes(screen) == list(range(44 - FOLLOW_KEEP, 44))  # the oldest views were removed
        assert screen.pane.views[-1].message.content == "answer 21"


async def test_sending_from_the_top_of_a_long_dialog_shows_the_end_with_the_reply() -> None:
    center = make_center([answer("the new answer")])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(200)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = await _open_at_home(app, pilot, dialog)
        assert _indexes(screen)[0] == 0
        screen.composer.input.focus()
        await type_text(pilot, "one more")
        await pilot.press("enter")
        await settle(pilot)
        assert screen.dialog.message_count == 402
        assert _indexes(screen)[-1] == 401
        assert screen.pane.views[-1].message.content == "the new answer"


async def test_opening_a_long_dialog_mounts_what_fills_the_pane_first_and_the_rest_after_the_paint() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(1000)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = main_screen(app)
        await screen.open_dialog(dialog)
        first = _indexes(screen)
        assert first[-1] == 1999 and len(first) < STEP // 2  # the first paint waits for a screenful only
        await settle(pilot)
        assert _indexes(screen) == list(range(2000 - STEP, 2000))  # then the rest of the window
        screen.pane.focus()
        await pilot.press("home")  # Home is staged as well: message 1 first, the rest below it after
        await settle(pilot)
        assert _indexes(screen) == list(range(STEP))


async def test_the_scrollbar_spans_the_whole_dialog_and_a_drag_to_its_middle_shows_the_messages_there() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(1000)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        pane = screen.pane
        mounted = sum(v.outer_size.height + 1 for v in pane.views)
        # every message takes 2 rows at least (its text, the margin): the 1,960 outside the window are space
        assert pane.virtual_size.height >= mounted + 1960 * 2
        assert pane.scroll_y == pane.max_scroll_y  # at the end, as opened
        pane.scroll_to(y=pane.max_scroll_y // 2, animate=False, immediate=True)  # as a drag of the thumb does
        assert await wait_until(pilot, lambda: 800 <= _indexes(screen)[0] <= 1200)
        await settle(pilot)
        on_screen = [v.index for v in pane.views if pane.region.overlaps(v.region)]
        assert on_screen and 800 <= on_screen[0] <= 1200, on_screen
        assert len(pane.views) <= LIMIT
        # the thumb still means the whole dialog: the space above stands for the messages before the window
        assert pane.virtual_size.height >= 1960 * 2
        pane.focus()
        await pilot.press("home")
        await settle(pilot)
        assert _indexes(screen)[0] == 0 and pane.scroll_y == 0


async def test_scrolling_up_from_the_window_edge_keeps_the_reader_on_the_same_message() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(200)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        pane = screen.pane
        first = pane.views[0]
        pane.scroll_to(y=first.virtual_region.y - 1, animate=False, immediate=True)  # just into the space above
        assert await wait_until(pilot, lambda: _indexes(screen)[0] < 400 - STEP)
        await settle(pilot)
        assert first.parent is pane  # the message the reader saw is still there, at the top of the pane
        assert abs(first.region.y - pane.region.y) <= 2


async def test_page_up_goes_on_past_the_window_into_the_earlier_messages() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(1000)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        pane = screen.pane
        pane.focus()

        def top_index() -> int:
            shown = [v.index for v in pane.views if v.index is not None and pane.region.overlaps(v.region)]
            return shown[0] if shown else -1

        for _ in range(5):  # 40 messages of 2 rows are 3 pages: this goes past the window it opened with (to ~1936)
            await pilot.press("pageup")
            await settle(pilot)
        assert 0 <= top_index() < 2000 - STEP, top_index()
        assert len(pane.views) <= LIMIT
        for _ in range(5):
            await pilot.press("pagedown")
            await settle(pilot)
        assert top_index() > 2000 - STEP - 20
