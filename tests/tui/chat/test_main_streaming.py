"""Sending, streaming, cancelling and failing, as the user sees it on the main screen."""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.engine import Role
from visindigo.engine.providers import FinishPart, Pause, ProviderError, ReasoningPart, TextPart
from visindigo.tui.chat.message_pane import Notice


async def test_a_reply_streams_into_the_pane_and_is_rendered_once_in_full() -> None:
    turn = [
        ReasoningPart("I should greet "),
        ReasoningPart("them back."),
        TextPart("# Hello\n\nFirst "),
        Pause(4.0),
        TextPart("part, then the second "),
        Pause(0.5),
        TextPart("part.\n\n```python\nprint(1)\n```\n"),
        FinishPart("stop"),
    ]
    app = make_app([turn])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "hi there")
        await pilot.press("enter")
        for _ in range(60):  # the first piece is drawn at the next frame; the second comes 4 s later (a loaded
            # machine can take seconds to draw a frame)
            await pilot.pause(0.05)
            stream = screen.pane.streaming_view
            if stream is not None and "First" in stream.query_one(Markdown).source:
                break
        # mid-stream: a streaming view without an index, the status says so, the drawer shows live reasoning
        stream = screen.pane.streaming_view
        assert stream is not None and stream.index is None
        assert "First" in stream.query_one(Markdown).source
        assert "second" not in stream.query_one(Markdown).source
        assert "generating" in str(screen.status_line.content)
        assert screen.drawer.source == "stream"
        assert "greet them back." in screen.drawer.text
        await settle(pilot)
        dialog = screen.dialog
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT]
        assert screen.pane.streaming_view is None
        view = screen.pane.view_for(1)
        assert view is not None
        assert view.query_one(Markdown).source == dialog.message_at(1).content
        assert "streaming" not in str(screen.status_line.content)
        assert screen.drawer.text == "I should greet them back."
        assert dialog.title == "hi there"
        assert screen.sidebar.dialog_tree.node_for(dialog.id) is not None
        assert screen.composer.text == ""


async def test_the_first_words_of_a_burst_are_drawn_at_once_not_a_frame_period_later() -> None:
    """At 0.5 frames/s a frame comes every 2 s; the first words of each burst of text are drawn when they arrive
    (a paused Textual interval ticks a whole period after it is resumed: the first reply waited for it)."""
    turn = [TextPart("First words"), Pause(6.0), TextPart(" and the rest."), FinishPart("stop")]
    app = make_app([turn], stream_fps=0.5)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "hello")
        await pilot.press("enter")
        loop = asyncio.get_running_loop()
        sent = loop.time()

        def shown() -> bool:
            stream = screen.pane.streaming_view
            return stream is not None and "First words" in stream.query_one(Markdown).source

        for _ in range(80):
            if shown():
                break
            await pilot.pause(0.025)
        waited = loop.time() - sent
        assert shown()
        assert waited < 1.5, f"the first words took {waited:.2f} s (a frame period is 2 s)"
        await settle(pilot)
        assert screen.dialog.message_at(1).content == "First words and the rest."


async def test_newline_keys_do_not_send_and_enter_does() -> None:
    app = make_app([answer("ok")])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await type_text(pilot, "one")
        await pilot.press("ctrl+j")
        await type_text(pilot, "two")
        assert screen.composer.text == "one\ntwo"
        assert screen.dialog.message_count == 0
        await pilot.press("enter")
        await settle(pilot)
        assert screen.dialog.message_at(0).content == "one\ntwo"


async def test_pasted_newlines_never_send() -> None:
    from textual import events

    app = make_app([answer("ok")])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        app.post_message(events.Paste("first line\nsecond line\n"))  # as the driver delivers it
        await pilot.pause()
        assert screen.dialog.message_count == 0
        assert screen.composer.text == "first line\nsecond line\n"


async def test_escape_cancels_and_keeps_the_partial_answer_marked_interrupted() -> None:
    turn = [TextPart("The beginning of a long "), Pause(30), TextPart("never shown"), FinishPart("stop")]
    app = make_app([turn])
    async with app.run_test(notifications=True) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "tell me")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert screen.runs.is_running(screen.dialog.id)
        node = screen.sidebar.dialog_tree.node_for(screen.dialog.id)
        assert node is not None and node.label.plain.startswith("● ")  # the tree marks a dialog answering
        screen.cancel_run(screen.dialog.id)  # what esc does; checked before the run has had a chance to end
        assert "cancelling…" in str(screen.status_line.content)
        await pilot.press("escape")
        await settle(pilot)
        dialog = screen.dialog
        assert not screen.runs.is_running(dialog.id)
        # once it has ended nothing says it is still cancelling (a toast used to stay for seconds)
        assert "cancelling" not in str(screen.status_line.content).lower()
        assert not any("ancelling" in n.message for n in app._notifications)
        last = dialog.message_at(dialog.message_count - 1)
        assert last.role is Role.ASSISTANT
        assert last.content == "The beginning of a long "
        assert last.meta.get("status") == "interrupted"
        view = screen.pane.view_for(dialog.message_count - 1)
        assert view is not None and view.has_class("-interrupted")
        assert screen.pane.streaming_view is None
        notices = list(screen.pane.query(Notice))
        assert notices and "Cancelled" in str(notices[0].content)
        node = screen.sidebar.dialog_tree.node_for(dialog.id)
        assert node is not None and not node.label.plain.startswith("●")


async def test_a_failed_run_says_why_and_keeps_what_arrived() -> None:
    turn = [TextPart("partial "), ProviderError("scripted: HTTP 503 service unavailable")]
    app = make_app([turn])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await type_text(pilot, "q")
        await pilot.press("enter")
        await settle(pilot)
        notices = list(screen.pane.query(Notice))
        assert notices and "503 service unavailable" in str(notices[0].content)
        last = screen.dialog.message_at(1)
        assert last.content == "partial " and last.meta.get("status") == "incomplete"
        assert screen.pane.view_for(1) is not None


async def test_a_second_send_while_answering_is_refused_not_queued() -> None:
    turn = [TextPart("slow"), Pause(30), FinishPart("stop")]
    app = make_app([turn, answer("second")])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await type_text(pilot, "first")
        await pilot.press("enter")
        await pilot.pause(0.2)
        await type_text(pilot, "again")
        await pilot.press("enter")
        await pilot.pause()
        assert screen.dialog.message_count == 1  # only the first question
        assert screen.composer.text == "again"  # the draft is kept
        await pilot.press("escape")
        await settle(pilot)


async def test_long_dialogs_mount_the_end_and_load_earlier_messages_on_demand() -> None:
    from tests.tui.helpers import make_center, seeded_dialog, wait_until
    from visindigo.tui.chat.message_pane import BATCH

    center = make_center([])
    dialog = seeded_dialog(center, [(f"question {n}", f"answer {n}") for n in range(150)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        # the views that fill the pane first, the rest of the window once they are drawn (a frame or two later)
        assert await wait_until(pilot, lambda: len(screen.pane.views) == BATCH)
        assert screen.pane.first_mounted == 300 - BATCH
        screen.pane.focus()
        await pilot.pause()  # focus moves with the next message: the key must reach the pane
        await pilot.press("home")  # the first message at once (issue 14: it used to load one batch per press)
        assert await wait_until(pilot, lambda: len(screen.pane.views) == BATCH)
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 0
        await screen.open_dialog(dialog, focus_index=5)
        await pilot.pause()
        assert screen.pane.view_for(5) is not None
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 5


async def test_a_run_goes_on_in_the_background_and_shows_again_when_its_dialog_is_reopened() -> None:
    # The pause outlasts the steps below even on a loaded machine (at 3 s the run sometimes ended first).
    slow = [TextPart("Background part one. "), Pause(8.0), TextPart("Part two."), FinishPart("stop")]
    app = make_app([slow, answer("quick answer")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "slow one")
        await pilot.press("enter")
        await pilot.pause(0.3)
        background = screen.dialog
        await pilot.press("ctrl+n")
        await type_text(pilot, "fast one")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert screen.dialog is not background
        assert screen.dialog.message_at(1).content == "quick answer"
        assert screen.runs.is_running(background.id)
        await screen.open_dialog_id(background.id)
        await pilot.pause(0.2)
        stream = screen.pane.streaming_view
        assert stream is not None
        assert "Background part one." in stream.query_one(Markdown).source
        await settle(pilot)
        assert screen.pane.streaming_view is None
        view = screen.pane.view_for(1)
        assert view is not None and view.query_one(Markdown).source == "Background part one. Part two."


async def test_the_pane_follows_a_stream_until_the_user_scrolls_up_and_again_after_end() -> None:
    paragraph = "A line of the answer that goes on for a while to fill the pane.\n\n"
    turn: list[object] = []
    for _ in range(6):
        turn += [TextPart(paragraph * 6), Pause(0.5)]
    turn.append(FinishPart("stop"))
    app = make_app([turn], stream_fps=30.0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        pane = screen.pane
        await type_text(pilot, "long")
        await pilot.press("enter")
        await pilot.pause(0.8)  # two pieces in: taller than the pane
        assert pane.max_scroll_y > 0 and pane.scroll_y == pane.max_scroll_y
        assert "tok/s" in str(screen.status_line.content)  # the live speed
        await pilot.press("ctrl+o", "pageup", "pageup")
        await pilot.pause()
        reading = pane.scroll_y
        assert reading < pane.max_scroll_y
        await pilot.pause(1.1)  # more arrives: the view stays where the user is reading
        assert pane.scroll_y == reading and pane.max_scroll_y > reading
        await pilot.press("end")  # back to the bottom: following again
        await pilot.pause(1.1)
        assert pane.scroll_y == pane.max_scroll_y
        await settle(pilot)
        assert pane.scroll_y == pane.max_scroll_y
