"""Issue 11 §5: a very long message is shown folded, all of it on request (in parts), and streams folded."""

from __future__ import annotations

from rich.cells import cell_len
from textual.widgets import Markdown

from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text
from visindigo.engine import Message, Role
from visindigo.tui.chat.markdown.long_text import (
    FOLD_LIMIT,
    FoldNote,
    LongText,
    WrappedText,
    fold,
    fold_middle,
    markdown_parts,
    wrap_lines,
)
from visindigo.tui.chat.message_view import MessageView

BIG = "A line of a very long answer, repeated until it is a megabyte long.\n" * 15_000  # ~1 MB: parts, not Markdown


def test_fold_cuts_at_a_line_end_and_counts_the_rest() -> None:
    head, hidden = fold(BIG)
    assert len(head) <= FOLD_LIMIT and head.endswith("long.") and hidden == len(BIG) - len(head)
    assert fold("short") == ("short", 0)


def test_wrapping_keeps_every_character_within_the_width() -> None:
    text = "word " * 50 + "\n" + "x" * 95 + "\n\n" + "京都" * 30 + "\t tab"
    lines = wrap_lines(text, 20)
    assert all(cell_len(line) <= 20 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace("\n", "").replace("\t", "").replace(" ", "")
    assert lines[:2] == ["word word word word", "word word word word"]


def test_markdown_parts_never_cut_inside_a_code_fence() -> None:
    section = "## Part\n\nSome text.\n\n```python\n" + "x = 1\n\n" * 400 + "```\n\nAfter.\n\n"
    text = section * 20
    pieces = markdown_parts(text, size=1_000)
    assert "".join(pieces) == text and len(pieces) > 5
    assert all(piece.count("```") % 2 == 0 for piece in pieces)


async def test_a_megabyte_message_opens_folded_and_enter_shows_all_of_it() -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [("give me everything", BIG)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        view = next(v for v in screen.pane.query(MessageView) if v.index == 1)
        assert len(view.query_one(Markdown).source) <= FOLD_LIMIT
        [note] = view.query(FoldNote)
        head, hidden, end = fold_middle(BIG)  # (issue 25 §13: the middle is folded, the end shown under the note)
        assert hidden == len(BIG) - len(head) - len(end) and f"{hidden:,} more characters folded" in str(note.render())
        assert len(view.copy_text()) >= len(BIG) - 2  # copying takes all of it
        screen.pane.select_view(view)
        screen.pane.focus()
        await pilot.press("enter")
        await settle(pilot)
        [long_text] = view.query(LongText)
        for _ in range(200):
            if long_text.filled:
                break
            await pilot.pause(0.05)
        [wrapped] = long_text.query(WrappedText)  # plain text, wrapped in a thread, only what is on screen drawn
        assert wrapped.filled and not view.query(FoldNote)
        assert "".join(wrapped.lines).replace(" ", "") == BIG.replace("\n", "").replace(" ", "")  # all of it
        assert all(len(line) <= wrapped.size.width for line in wrapped.lines)
        await pilot.press("enter")
        await settle(pilot)
        assert view.query(FoldNote) and not view.query(LongText)


async def test_an_unfolded_markdown_message_is_mounted_in_parts() -> None:
    text = "".join(f"## Section {n}\n\n" + "A sentence of the section. " * 40 + "\n\n" for n in range(120))
    center = make_center([])
    dialog = seeded_dialog(center, [("long", text)])
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        view = next(v for v in screen.pane.query(MessageView) if v.index == 1)
        screen.pane.select_view(view)
        screen.pane.focus()
        await pilot.press("enter")
        [long_text] = view.query(LongText)
        for _ in range(100):
            if long_text.filled:
                break
            await pilot.pause(0.1)
        sources = [markdown.source for markdown in long_text.query(Markdown)]
        assert long_text.markdown and len(sources) > 3 and "".join(sources).strip() == text.strip()


async def test_a_streaming_reply_past_the_fold_only_counts() -> None:
    app = make_app([answer(BIG[: FOLD_LIMIT * 3], pieces=60)])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        await settle(pilot)
        view = screen.pane.query(MessageView).last()
        assert len(view.query_one(Markdown).source) <= FOLD_LIMIT
        assert view.query(FoldNote) and screen.dialog.last_message.content == BIG[: FOLD_LIMIT * 3]


async def test_a_megabyte_reasoning_is_folded_in_the_drawer_and_alt_g_shows_all_of_it() -> None:
    thinking = "A line of very long thinking, repeated until it is a megabyte.\n" * 16_000
    center = make_center([answer("short answer", thinking[: FOLD_LIMIT * 3], pieces=30)])
    app = make_app(center=center)
    async with app.run_test(size=(160, 40)) as pilot:  # wide: the drawer is open
        screen = main_screen(app)
        drawer = screen.drawer
        assert drawer.display
        await type_text(pilot, "go")
        await pilot.press("enter")
        await settle(pilot)
        # The streamed one: folded while it arrived and once done, the beginning shown and the rest counted.
        shown = str(drawer._text.render())
        assert len(shown) <= FOLD_LIMIT and drawer.folded and drawer.text == thinking[: FOLD_LIMIT * 3]
        assert "more characters folded · alt+g shows all" in str(drawer._note.render())
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "think hard")
        dialog.append_message(Message(Role.ASSISTANT, "answer", reasoning=thinking))
        await screen.open_dialog(dialog)
        await settle(pilot)
        drawer.show_at(dialog, 1)
        await pilot.pause()
        hidden = len(thinking) - len(fold(thinking)[0])
        assert drawer.folded and f"{hidden:,} more characters folded" in str(drawer._note.render())
        assert len(str(drawer._text.render())) <= FOLD_LIMIT
        await pilot.press("alt+g")
        await pilot.pause(0.5)
        [long_text] = drawer.query(LongText)
        assert not drawer.folded and not drawer._text.display and not drawer._note.display
        for _ in range(200):
            if long_text.filled:
                break
            await pilot.pause(0.05)
        [wrapped] = long_text.query(WrappedText)
        assert "".join(wrapped.lines).replace(" ", "") == thinking.replace("\n", "").replace(" ", "")  # all of it
        await pilot.press("alt+g")  # folded again
        await pilot.pause()
        assert drawer.folded and not drawer.query(LongText) and drawer._note.display
