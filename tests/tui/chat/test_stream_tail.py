"""The streaming end of a reply on the screen (issue 25 §12, §13, §8): the text being written stays on screen
at 80×24 while the pane follows, on the main screen and in a comparison's tab; a very long reply shows its
beginning and its end with one fold line between; a running tool's progress is never cut off."""

from __future__ import annotations

import html
import re
from typing import Any

from textual.app import App

from tests.llm_server import LLMServer, openai_stream
from tests.tui.compare_host import MODELS, compare_screen, scripted_center
from tests.tui.compare_host import make_app as make_compare_app
from tests.tui.helpers import answer, main_screen, make_app, make_center, seeded_dialog, settle, type_text, wait_until
from visindigo.engine.compare import ModelChoice
from visindigo.engine.providers import FinishPart, Pause, TextPart
from visindigo.tui.chat.markdown.long_text import FOLD_LIMIT, FoldNote, fold_middle
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.compare import flow as compare_flow

#: Sentences of one long paragraph, each naming its number, so the screen says which was the last one drawn.
LINES = [f"Sentence mark{n:02d} of the answer goes on for a while. " for n in range(60)]


def screen_text(app: App[Any]) -> str:
    """The text on the screen as the terminal shows it (each run of one style on a line of its own)."""
    svg = app.export_screenshot()
    runs = [html.unescape(re.sub(r"<[^>]+>", "", run)) for run in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    return "\n".join(runs).replace("\xa0", " ")


async def check_the_newest_line_stays_on_screen(pilot: Any, pane: MessagePane, written: list[str]) -> None:
    """Sample the pane while a reply streams into it: each time, the newest line written must be on screen."""
    seen = 0
    for _ in range(600):
        await pilot.pause(0.05)
        view = pane.streaming_view
        if view is None:
            break
        await pilot.pause()
        pilot.app.screen._on_timer_update()  # (the screen's pending update, as the next one sends it to the terminal)
        shown = screen_text(pilot.app)
        marks = re.findall(r"mark\d\d", view.message.content)  # (read with the screen: nothing ran in between)
        if not marks:
            continue
        # the newest sentence, or the one before it while a frame that has just finished a block mounts it
        assert marks[-1] in shown or (len(marks) > 1 and marks[-2] in shown), f"{marks[-1]} is not on screen:\n{shown}"
        seen += 1
        written.append(marks[-1])
    assert seen >= 5, f"the stream was sampled only {seen} times"


async def test_at_80x24_the_text_being_streamed_stays_on_screen_on_the_main_screen() -> None:
    turn: list[Any] = []
    for line in LINES:
        turn += [TextPart(line), Pause(0.12)]
    turn.append(FinishPart("stop"))
    app = make_app([turn], stream_fps=8.0)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: screen.pane.streaming_view is not None)
        written: list[str] = []
        await check_the_newest_line_stays_on_screen(pilot, screen.pane, written)
        assert written[-1] >= "mark40"  # the reply outgrew the pane several times over while it was watched


async def test_at_80x24_the_text_being_streamed_stays_on_screen_in_a_comparison_tab(llm_server: LLMServer) -> None:
    pieces = list(LINES)
    replies = {model: (lambda: openai_stream(pieces, usage=(5, 30), delay_between=0.12)) for model in MODELS}
    app = make_compare_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_screen(app)
        models = [ModelChoice("lab", model) for model in MODELS[:2]]
        main.in_worker(compare_flow.compare(app, main, models, question="Lines?"), group="compare")
        assert await wait_until(pilot, lambda: type(app.screen).__name__ == "CompareScreen")
        screen = compare_screen(app)
        column = screen.order[0]
        assert await wait_until(pilot, lambda: column.pane.streaming_view is not None)
        assert screen.has_class("-tabs")
        written: list[str] = []
        await check_the_newest_line_stays_on_screen(pilot, column.pane, written)
        assert written[-1] >= "mark40"


def test_fold_middle_keeps_the_beginning_and_the_end_and_counts_what_is_between() -> None:
    text = "".join(f"line {n} of a long log\n" for n in range(100_000))
    head, hidden, end = fold_middle(text)
    assert text.startswith(head) and text.endswith(end) and len(head) + hidden + len(end) == len(text)
    assert len(head) <= FOLD_LIMIT and end.startswith("line ") and end.endswith("line 99999 of a long log\n")
    assert fold_middle("short") == ("short", 0, "")
    fenced = "Intro\n\n```text\n" + "x = 1\n" * 20_000 + "```\n\nThe conclusion.\n"
    head, hidden, end = fold_middle(fenced)
    assert end.startswith("```\n") and end.endswith("The conclusion.\n")  # the end opens inside the code block


async def _streamed_reply(size: int) -> None:
    body = "".join(f"Paragraph {n:06d} of a very long reply, streamed in parts.\n\n" for n in range(size // 58 + 1))
    text = body[:size] + "\n\nTHE CONCLUSION is at the very end.\n"
    app = make_app([answer(text, pieces=200)])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "go")
        await pilot.press("enter")
        assert await wait_until(pilot, lambda: screen.dialog.message_count == 2 and not screen.pane.streaming_view, 120)
        await settle(pilot)
        view = screen.pane.view_for(1)
        assert view is not None
        notes = list(view.query(FoldNote))
        assert len(notes) == 1, [str(note.render()) for note in notes]  # the fold line once
        head, hidden, end = fold_middle(text)
        assert f"{hidden:,} more characters folded" in str(notes[0].render())
        sources = [markdown.source for markdown in view.query("LiveMarkdown")]
        assert sources[0] == head and sources[-1] == end and "THE CONCLUSION" in sources[-1]
        screen.pane.scroll_end(animate=False, immediate=True)
        await settle(pilot)
        assert "THE CONCLUSION is at the very end." in screen_text(app)


async def test_a_megabyte_reply_shows_its_beginning_and_its_end_with_one_fold_line() -> None:
    await _streamed_reply(1_000_000)


async def test_a_five_megabyte_reply_shows_its_beginning_and_its_end_with_one_fold_line() -> None:
    await _streamed_reply(5_000_000)


LONG_ARGUMENTS = {"path": "/srv/data/" + "very-long-directory-name/" * 6 + "file.txt", "mode": "thorough"}


async def _progress_is_visible(size: tuple[int, int]) -> None:
    center = make_center([])
    dialog = seeded_dialog(center, [("copy it", "copying")])
    app = make_app(center=center)
    async with app.run_test(size=size) as pilot:
        screen = main_screen(app)
        await screen.open_dialog(dialog)
        await settle(pilot)
        pane = screen.pane
        await pane.tool_started("call-1", "copy_everything_slowly", LONG_ARGUMENTS)
        await pane.tool_progressed("call-1", "▕███░░░░░░░▏ 9/30 copying")
        await settle(pilot)
        shown = screen_text(app)
        assert "9/30" in shown and "▕███░░░░░░░▏" in shown, shown
        assert "▕███░░░░░░░▏ 9/30 copying  copy_every" in shown  # and the call named after it, on the same line


async def test_a_running_tools_progress_is_on_screen_at_120x40_with_a_long_signature() -> None:
    await _progress_is_visible((120, 40))


async def test_a_running_tools_progress_is_on_screen_at_80x24_with_a_long_signature() -> None:
    await _progress_is_visible((80, 24))


def test_the_growing_end_is_the_last_block_and_what_is_before_it_never_changes() -> None:
    from visindigo.tui.chat.markdown.tail_pieces import pieces, split_settled

    text = "# Title\n\nA paragraph.\n\n```python\nx = 1\n```\n\n- one\n- two **bold"
    settled, growing = split_settled(text)
    assert settled + growing == text and growing == "- one\n- two **bold"
    assert split_settled("One paragraph still growing") == ("", "One paragraph still growing")
    for cut in range(1, len(text)):  # wherever a frame ends, the settled part is a prefix of the final one's
        done, _rest = split_settled(text[:cut])
        assert settled.startswith(done), (cut, done)
    drawn = pieces(growing)
    assert [(piece.prefix, piece.content.plain) for piece in drawn] == [("• ", "one"), ("• ", "two **bold")]
    [code] = pieces("```python\nx = 1\ny = 2")
    assert code.code and code.content.plain == "x = 1\ny = 2"
