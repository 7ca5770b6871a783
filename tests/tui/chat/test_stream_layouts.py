"""What a streamed frame costs Textual (issue 14 §3): at most one layout per frame, none while the growing end
of the reply still fits the room reserved for it, and a final render that shows the streamed text at once and
colours its code afterwards, off the event loop."""

from __future__ import annotations

import asyncio
import difflib
import html
import re
from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Label, Static

from tests.tui.helpers import make_center, seeded_dialog, wait_until
from visindigo.engine import Message, Role
from visindigo.tui import platform
from visindigo.tui.chat.markdown.live_markdown import LiveMarkdown, PlainFence
from visindigo.tui.chat.markdown.stream_tail import TAIL_STEP, StreamTail
from visindigo.tui.chat.markdown.tail_pieces import blocks
from visindigo.tui.chat.message_list import MessageList
from visindigo.tui.chat.message_view import MessageView
from visindigo.tui.workbench import RunState

SENTENCE = "the plan keeps every branch of the work so a regenerated answer never replaces the one before it"
WORDS = SENTENCE.split(" ")


class Host(App[None]):
    """The message list of the app, following a reply that streams into it."""

    def __init__(self) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them

    def compose(self) -> ComposeResult:
        yield MessageList()

    async def open(self) -> tuple[MessageList, RunState, MessageView]:
        messages = self.query_one(MessageList)
        await messages.show_dialog(seeded_dialog(make_center([]), [("a question", "an answer")]))
        messages.anchor()
        run = RunState("dialog", running=True, round=1, streaming=True)
        await messages.open_stream(1)
        view = messages.streaming_view
        assert view is not None
        for _ in range(3):  # (the dialog's and the stream view's own layouts, so a frame counts only its own)
            await asyncio.sleep(0.01)
            self.screen._on_timer_update()
        return messages, run, view


@pytest.fixture
def layouts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts the screen's layouts (each entry: one `_refresh_layout`)."""
    done: list[int] = []
    textual_refresh_layout = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        done.append(1)
        textual_refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    yield done


async def _frame(pilot: Any, stream: tuple[MessageList, RunState, MessageView], text: str, layouts: list[int]) -> int:
    """Flush one frame's text as the pane's frame timer does, and run the screen's updates until none is
    pending; the layouts it took, negative for a frame in which the pane scrolls: the room kept under the reply
    was renewed (two thirds of a pane at a time), or the reply grew past the pane's bottom. Those frames too lay
    out once: the pane's new virtual size asks for no second layout (the seam's `layout_once`), and the scrollbar
    that appears when the reply first overflows the pane is shown in the same layout (`StreamTail._lay_out`), as
    is the trimmed margin of the reply's first block (it took two or three layouts before)."""
    messages, run, view = stream
    before = len(layouts)
    tail = view.query_one(StreamTail)
    room = tail.reserved - tail.text_lines
    scroll = messages.max_scroll_y
    run.text.answer.append(text)
    await messages.flush(run)
    for _ in range(3):  # the frame's own update, and any second pass it asks for
        await pilot.pause()
        screen = pilot.app.screen
        screen._on_timer_update()  # (what the screen's update timer does, run now rather than raced)
    if tail.reserved - tail.text_lines > room or messages.max_scroll_y != scroll:
        return -(len(layouts) - before)  # the pane renewed the room under the reply: it scrolls once (see below)
    return len(layouts) - before


def _tail_text(view: MessageView) -> str:
    """What the growing end of the reply shows, as the screen would draw it."""
    tail = view.query_one(StreamTail)
    return "\n".join(tail.render_line(y).text for y in range(tail.text_lines))


def _words(seed: int, count: int) -> str:
    return " ".join(WORDS[(seed + i) % len(WORDS)] for i in range(count)) + " "


async def test_a_streaming_paragraph_is_laid_out_at_most_once_per_frame_and_mostly_not_at_all(
    layouts: list[int],
) -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        stream = await app.open()
        view = stream[2]
        await _frame(pilot, stream, "Intro paragraph.\n\n", layouts)
        per_frame = [await _frame(pilot, stream, _words(frame, 6), layouts) for frame in range(40)]
        assert max(per_frame) <= 1 and min(per_frame) >= -1 and sum(n < 0 for n in per_frame) <= 2, str(per_frame)
        # ~40 characters a frame at ~96 columns: the paragraph outgrows its reserved room every few frames only
        assert per_frame.count(0) >= len(per_frame) * 2 // 3, per_frame
        tail = view.query_one(StreamTail)
        assert tail.reserved > tail.text_lines  # the growing end has room reserved under its text
        assert _words(39, 6).strip() in " ".join(_tail_text(view).split())  # and the last frame's words are drawn


async def test_new_blocks_settle_in_batches_so_most_cost_no_layout(layouts: list[int]) -> None:
    """Mounting a settled block lays out the screen; finished blocks stay in the tail's room until it is full and
    then settle together, in the layout that renews the room (a reply of short paragraphs took one layout per
    paragraph: 30 here)."""
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        stream = await app.open()
        view = stream[2]
        per_block = []
        for block in range(30):  # (40 rows: the reply outgrows the pane, which then scrolls in steps)
            per_block.append(await _frame(pilot, stream, f"Paragraph {block}: {_words(block, 5)}\n\n", layouts))
        assert max(per_block) <= 1 and min(per_block) >= -1, str(per_block)  # renewing the room: one layout too
        assert sum(n < 0 for n in per_block) <= 6, str(per_block)  # 30 blocks of 2 lines: the room renewed < 6 times
        assert per_block.count(0) >= 20, str(per_block)  # most new blocks are drawn in the room: no layout
        markdown = view.query_one(LiveMarkdown)
        settled = [child for child in markdown.children if not isinstance(child, StreamTail)]
        assert len(settled) >= 15 and len(settled) + len(blocks(markdown.pending)) == 30  # settled in batches
        assert all(block.styles.inline.min_height is None for block in settled)  # only the growing end keeps room
        assert "Paragraph 29:" in _tail_text(view) and "Paragraph 0:" in markdown.source


async def test_a_reply_of_sections_lays_out_once_on_every_frame_the_first_heading_and_scrollbar_included(
    layouts: list[int],
) -> None:
    """A reply that opens with a heading (its top margin is trimmed when it settles) and outgrows the pane (the
    pane's scrollbar appears): every frame lays out at most once, the frames that renew the room too."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        stream = await app.open()
        messages, _run, view = stream
        per_frame = []
        for section in range(6):
            per_frame.append(await _frame(pilot, stream, f"## Part {section}\n\n", layouts))
            per_frame += [await _frame(pilot, stream, _words(section + frame, 9), layouts) for frame in range(4)]
            per_frame.append(await _frame(pilot, stream, "\n\n- one item\n- another item\n\n", layouts))
        assert all(abs(n) <= 1 for n in per_frame), str(per_frame)
        assert sum(n < 0 for n in per_frame) >= 2  # the room was renewed (and the pane scrolled) on the way
        assert messages.show_vertical_scrollbar  # the reply overflowed the pane
        first = next(child for child in view.query_one(LiveMarkdown).children if not isinstance(child, StreamTail))
        assert first.styles.margin.top == 0  # the first heading sits beside the gutter


async def test_a_growing_code_block_is_repainted_in_its_room_without_layouts(layouts: list[int]) -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        stream = await app.open()
        view = stream[2]
        await _frame(pilot, stream, "Code:\n\n```python\n", layouts)
        per_line = [await _frame(pilot, stream, f"value_{line} = {line}\n", layouts) for line in range(24)]
        assert max(per_line) <= 1 and min(per_line) >= -1, str(per_line)
        # a layout only when the code outgrows the TAIL_STEP lines reserved (the first line too: a new block)
        assert sum(abs(n) for n in per_line) <= 24 // TAIL_STEP + 4, str(per_line)
        assert "value_23 = 23" in _tail_text(view)


GROWING = [
    "Code:\n\n```python\n",
    *(f"value_{line} = {line}\n" for line in range(14)),
    "value_14 = 1",
    "4 + 1\n",
    "long_line = '" + "x" * 120 + "'\n```\n\n",  # (wider than the pane: the block is laid out again)
    "A paragraph long enough to wrap over several lines of the pane, growing a ",
    "few words at a time, with *emphasis* and a **bold run that goes on over ",
    "the end of the frame and closes** later, and a word split in ha",
    "lf by a frame, and ",
    "日本語のテキストも",
    "折り返されて、幅の広い文字が行末に来る ",
    *(_words(frame, 7) for frame in range(12)),
    "`code that clo",
    "ses` and the end.",
]


#: Piece number → the terminal's new size before it (narrower, then wider, while the paragraph grows).
RESIZE_AT = {len(GROWING) - 10: (70, 40), len(GROWING) - 6: (120, 40)}


def _screen(app: App[None]) -> str:
    return app.export_screenshot()


def _text_lines(svg: str) -> list[str]:
    """The text of a screenshot's lines (to say what differs)."""
    return [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in re.findall(r"<text[^>]*>(.*?)</text>", svg)]


async def test_a_growing_block_repaints_only_its_new_lines_and_shows_what_a_full_repaint_shows(
    layouts: list[int],
) -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        stream = await app.open()
        messages, run, view = stream
        code_repaints: list[int] = []
        for number, piece in enumerate(GROWING):
            if number in RESIZE_AT:  # a terminal resized mid-stream: the paragraph wraps anew
                await pilot.resize_terminal(*RESIZE_AT[number])
                await pilot.pause()
            run.text.answer.append(piece)
            await messages.flush(run)
            tail = view.query_one(StreamTail)
            if piece.startswith("value_") and tail.size:
                code_repaints.append(sum(region.height for region in tail._repaint_regions))
            for _ in range(3):
                await pilot.pause()
                app.screen._on_timer_update()
            drawn = _screen(app)
            for widget in view.query("*"):  # a full repaint of every block: what the screen must show
                widget.refresh()
            await pilot.pause()
            app.screen._on_timer_update()
            full = _screen(app)
            assert full == drawn, f"after {piece!r} the screen showed stale lines:\n" + "\n".join(
                difflib.unified_diff(_text_lines(drawn), _text_lines(full), lineterm="", n=1)
            )
        markdown = view.query_one(LiveMarkdown)
        assert markdown.source.endswith("the end.")
    # a frame that adds a line to a code block repaints that line (and the one before), not the whole block
    # (the first lines fill the block's first box; each time the code outgrows its room it is laid out whole)
    assert len(code_repaints) == 15 and sorted(code_repaints)[10] <= 3, code_repaints


LISTS = [
    "Steps:\n\n- first item, a few words ",
    "that keep coming for a while ",
    *(_words(frame, 6) for frame in range(6)),
    "\n- second item ",
    *(_words(frame, 5) for frame in range(5)),
    "**bold that clo",
    "ses** and more\n  - a nested item ",
    *(_words(frame, 5) for frame in range(4)),
    "\n\n1. an ordered one ",
    *(_words(frame, 6) for frame in range(4)),
    "\n2. and another ",
    *(_words(frame, 6) for frame in range(4)),
    "\n\nAfter the lists.",
]


def _shape(widget: Any) -> list[tuple[str, str]]:
    """What a Markdown widget shows, block by block: each descendant's type and text."""
    shape = []
    for node in widget.query("*"):
        if isinstance(node, StreamTail):  # (the growing end, while a reply streams)
            continue
        content = getattr(node, "_content", None)
        shape.append((type(node).__name__, content.plain if content is not None else ""))
    return shape


async def test_a_growing_list_grows_in_place_and_ends_as_its_full_parse(layouts: list[int]) -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        stream = await app.open()
        view = stream[2]
        per_frame = []
        for piece in LISTS:
            per_frame.append(await _frame(pilot, stream, piece, layouts))
            drawn = _screen(app)
            for widget in view.query("*"):
                widget.refresh()
            await pilot.pause()
            app.screen._on_timer_update()
            assert _screen(app) == drawn, f"after {piece!r} the screen showed stale lines"
        streamed = view.query_one(LiveMarkdown)
        await streamed.end_stream()  # (the reply complete: its growing end settles too)
        fresh = LiveMarkdown(streamed.source, live=True)
        await app.query_one(MessageList).mount(fresh)
        await pilot.pause()
        assert _shape(streamed) == _shape(fresh)
    # the frames that only lengthen the last item's text mostly need no layout (before: one each)
    assert all(abs(n) <= 1 for n in per_frame), per_frame
    growing = per_frame[2:8] + per_frame[9:14]
    assert growing.count(0) >= len(growing) // 2, per_frame


REPLY = "Some text.\n\n```python\ndef f(value):\n    return value + 1\n```\n"
#: A reply whose code block is finished while it streams (the paragraph after it begins).
CODE_THEN_TEXT = REPLY + "\nAnd a last line."


async def test_the_final_render_shows_the_streamed_text_at_once_and_colours_it_after() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        _messages, _run, view = await app.open()
        for piece in (REPLY[:14], REPLY[14:40], REPLY[40:], CODE_THEN_TEXT[len(REPLY) :]):
            await view.write(piece)
        await pilot.pause()
        fence = view.query_one(PlainFence)
        label = fence.query_one("#code-content", Label)
        streamed = label.content.plain
        await view.finish(Message(Role.ASSISTANT, CODE_THEN_TEXT), 0)
        # finish returned: the streamed blocks stay, the code still plain (its colours are made in a thread)
        assert view.query_one(PlainFence) is fence and not label.content.spans
        assert label.content.plain == streamed
        assert await wait_until(pilot, lambda: bool(label.content.spans), seconds=30)
        assert label.content.plain == streamed  # the coloured code is the same text: nothing moves
        assert fence.coloured
        # then (not before: it moves the pane) the room kept for more text goes, and "streaming…" with it
        markdown = view.query_one(LiveMarkdown)
        assert await wait_until(pilot, lambda: not markdown.query(StreamTail), seconds=30)
        assert "streaming" not in str(view.query_one(".status", Static).content)


async def test_text_not_yet_flushed_when_the_message_arrives_is_appended_not_rendered_again() -> None:
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        _messages, _run, view = await app.open()
        await view.write(REPLY[:40])  # the message is added before the last frame flushed the rest
        await pilot.pause()
        first = view.query_one(LiveMarkdown).children[0]
        await view.finish(Message(Role.ASSISTANT, REPLY), 0)
        markdown = view.query_one(LiveMarkdown)
        assert markdown.children[0] is first  # the streamed blocks kept: no full render on the event loop
        assert markdown.source == REPLY
        fence = view.query_one(PlainFence)
        assert "return value + 1" in fence.code
        assert await wait_until(pilot, lambda: fence.coloured, seconds=30)


async def test_a_finished_reply_leaves_no_blank_line_under_its_last_block() -> None:
    """The final render keeps the streamed blocks, so it must also drop the last one's bottom margin (a full
    render did that on its contents event): else every streamed reply ends with a blank line (the demo showed one
    between an answer and its tool call)."""
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        _messages, _run, view = await app.open()
        text = "Let me check the weather in **Osaka** first."
        await view.write(text)
        await pilot.pause()
        await view.finish(Message(Role.ASSISTANT, text), 0)
        markdown = view.query_one(LiveMarkdown)
        assert await wait_until(pilot, lambda: not markdown.query(StreamTail), seconds=30)
        await pilot.pause()
        [paragraph] = markdown.children
        assert paragraph.styles.margin.bottom == 0
        assert markdown.outer_size.height == 1
