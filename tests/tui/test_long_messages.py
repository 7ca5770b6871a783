"""Issue 11 §5: a very long message is shown folded, all of it on request (in parts), and streams folded."""

from __future__ import annotations

from textual.widgets import Markdown

from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text
from visindigo.tui.widgets.long_text import FOLD_LIMIT, FoldNote, LongText, fold, markdown_parts, parts
from visindigo.tui.widgets.message_view import MessageView

BIG = "A line of a very long answer, repeated until it is a megabyte long.\n" * 15_000  # ~1 MB: parts, not Markdown


def test_fold_and_parts_cut_at_line_ends_and_lose_nothing() -> None:
    head, hidden = fold(BIG)
    assert len(head) <= FOLD_LIMIT and head.endswith("long.") and hidden == len(BIG) - len(head)
    pieces = parts(BIG)
    assert "".join(pieces) == BIG and all(piece.endswith("\n") for piece in pieces)
    assert fold("short") == ("short", 0)


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
        assert f"{len(BIG) - len(fold(BIG)[0]):,} more characters folded" in str(note.render())
        assert len(view.copy_text()) >= len(BIG) - 2  # copying takes all of it
        screen.pane.select_view(view)
        screen.pane.focus()
        await pilot.press("enter")
        await settle(pilot)
        [long_text] = view.query(LongText)
        await pilot.pause(0.5)
        shown = "".join(str(static.render()) for static in long_text.children)
        assert len(shown) > len(BIG) // 2 and not view.query(FoldNote)  # filling in, part by part
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
