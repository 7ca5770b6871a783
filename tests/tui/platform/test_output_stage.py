"""The output stage writes only changed cells, and a terminal emulator shows the same screen as with Textual's
own output after every frame — through a streamed reply, resizes, a modal opening and closing, and a resume.

The frames are recorded from the real app (every compositor update `App._display` is handed), then replayed
into two pyte screens: one fed Textual's own bytes for each update (the intended screen), one fed the
stage's. Wherever the terminal may have been disturbed, the stage's screen is scrambled first, so it only
matches if the stage repainted everything.
"""

from __future__ import annotations

import io
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pyte
import textual.constants
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Offset, Region, Size
from textual.strip import Strip

import visindigo.tui.app as app_module
from tests.tui.helpers import answer, make_app, make_center, settle, type_text
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.platform.output_stage import OutputStage, stage_of

REPLY = (
    "## A heading\n\nSome prose that wraps over several lines of the pane, with **bold** and *italic* words and "
    "`inline code`, then wide characters: 京都の寺 and 東京 🙂 mixed with ASCII.\n\n"
    + "\n".join(f"- item {i} of a list that says something" for i in range(6))
    + "\n\n```python\n"
    + "\n".join(f"value_{i} = compute({i}) * {i + 1}  # line {i}" for i in range(24))
    + "\n```\n\nA closing paragraph long enough to scroll the pane once more as the stream goes on and on.\n"
)


@dataclass
class Frame:
    screen: Any
    size: Size
    update: LayoutUpdate | ChopsUpdate
    disturbed: bool = False


class RecordingMixin:
    """Keeps every compositor update (the app runs headless, so Textual itself writes nothing)."""

    frames: list[Frame]

    def _display(self, screen: Any, renderable: Any) -> None:
        app: Any = self
        if isinstance(renderable, LayoutUpdate | ChopsUpdate):
            self.frames.append(Frame(screen, Size(*app.size), renderable))
        super()._display(screen, renderable)  # type: ignore[misc]


class RecordingApp(RecordingMixin, VisindigoApp):
    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))


async def record_session() -> tuple[list[Frame], Any]:
    """The app on a 256-colour terminal, as most are; a screenshot is taken first (Textual's own, made with a
    truecolor console): Rich keeps the truecolor codes on the styles it drew, and the app's later frames mix
    those styles with equal ones that get 256-colour codes — the stage must write what Textual writes for each."""
    with mock.patch.object(textual.constants, "COLOR_SYSTEM", "256"):
        app = RecordingApp(make_center([answer(REPLY, pieces=60)]), AppOptions(stream_fps=30.0))
    app.frames = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.export_screenshot()
        await type_text(pilot, "tell me")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press("f1")  # the help screen, a modal over the main screen
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("shift+tab")
        await pilot.pause()
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await type_text(pilot, "next")
        await pilot.pause()
        frames: list[Frame] = app.frames
        return frames, app.console


def emulator(size: Size) -> tuple[pyte.Screen, pyte.Stream]:
    screen = pyte.Screen(size.width, size.height)
    return screen, pyte.Stream(screen)


def cells(screen: pyte.Screen) -> list[list[tuple[Any, ...]]]:
    return [
        [
            (c.data, c.fg, c.bg, c.bold, c.italics, c.underscore, c.reverse, c.strikethrough)
            for c in (screen.buffer[y][x] for x in range(screen.columns))
        ]
        for y in range(screen.lines)
    ]


def scramble(stream: pyte.Stream, size: Size) -> None:
    """What another program (or a terminal's reflow) might have left: every cell different."""
    for y in range(size.height):
        stream.feed(f"\x1b[{y + 1};1H\x1b[31;44m" + "#" * size.width)
    stream.feed("\x1b[0m")


def mark_disturbances(frames: list[Frame]) -> None:
    """A frame after a resize or from another screen than the one before: the terminal may have changed."""
    for before, frame in itertools.pairwise(frames):
        frame.disturbed = frame.size != before.size or frame.screen is not before.screen


def replay(frames: list[Frame], console: Any, resume_at: int | None = None) -> tuple[int, int, int]:
    """Both screens after every frame must match; (frames, Textual's bytes, the stage's bytes)."""
    color_system = console._color_system or ColorSystem.TRUECOLOR
    stage = OutputStage(color_system=color_system)
    intended, intended_stream = emulator(frames[0].size)
    staged, staged_stream = emulator(frames[0].size)
    textual_bytes = staged_bytes = 0
    for number, frame in enumerate(frames):
        if frame.size != Size(intended.columns, intended.lines):
            intended.resize(frame.size.height, frame.size.width)
            staged.resize(frame.size.height, frame.size.width)
        if frame.disturbed or number == resume_at:
            scramble(staged_stream, frame.size)
        if number == resume_at:
            stage.invalidate()  # what the app does on its resume signal (tested below)
        own = frame.update.render_segments(console)
        intended_stream.feed(own)
        stage.resize(frame.size.width, frame.size.height)
        stage.show(frame.screen)
        stage.apply(frame.update)
        data = stage.frame(Offset(0, 0))
        staged_stream.feed(data)
        textual_bytes += len(own.encode())
        staged_bytes += len(data.encode())
        if cells(staged) != cells(intended):
            rows = [
                f"{y}: intended {''.join(c[0] for c in a)!r}\n{y}: staged   {''.join(c[0] for c in b)!r}\n"
                f"{y}: first cell that differs (char, fg, bg, bold, italics, underscore, reverse, strikethrough): "
                + next(f"{x}: {p} != {q}" for x, (p, q) in enumerate(zip(a, b, strict=True)) if p != q)
                for y, (a, b) in enumerate(zip(cells(intended), cells(staged), strict=True))
                if a != b
            ]
            raise AssertionError(f"frame {number} ({type(frame.update).__name__}) differs:\n" + "\n".join(rows[:6]))
    return len(frames), textual_bytes, staged_bytes


async def test_replayed_frames_leave_the_intended_screen_after_every_frame_with_fewer_bytes() -> None:
    frames, console = await record_session()
    mark_disturbances(frames)
    sizes = {frame.size for frame in frames}
    assert {Size(100, 30), Size(80, 24), Size(120, 40)} <= sizes
    assert sum(frame.disturbed for frame in frames) >= 4  # two resizes, the modal opening and closing
    assert any(isinstance(frame.update, ChopsUpdate) for frame in frames)
    count, textual_bytes, staged_bytes = replay(frames, console, resume_at=len(frames) * 2 // 3)
    assert count > 20
    assert staged_bytes < textual_bytes / 2, (textual_bytes, staged_bytes)


async def test_a_frame_with_nothing_changed_writes_nothing_and_a_one_cell_change_writes_little() -> None:
    frames, _ = await record_session()
    last = frames[-1]
    stage = OutputStage()
    stage.resize(last.size.width, last.size.height)
    stage.apply(frames[-1].update)
    first = stage.frame(Offset(3, 4))
    assert len(first) > last.size.width * last.size.height
    stage.apply(last.update)  # the same cells again
    assert stage.frame(Offset(3, 4)) == ""
    assert stage.frame(Offset(5, 4)) == "\x1b[5;6H"  # only the cursor moved
    stage.apply(LayoutUpdate([[Strip([Segment("Z")])]], Region(7, 2, 1, 1)))
    change = stage.frame(Offset(5, 4))
    assert "Z" in change and len(change) < 40
    assert stage.lines()[2][7] == "Z"


def test_wide_characters_are_written_whole_when_either_half_changes() -> None:
    stage = OutputStage(10, 1)
    stage.apply(LayoutUpdate([[Strip([Segment("ab京都cd")])]], Region(0, 0, 8, 1)))
    screen, stream = emulator(Size(10, 1))
    stream.feed(stage.frame())
    assert screen.display[0].startswith("ab京都cd")
    stage.apply(LayoutUpdate([[Strip([Segment("x")])]], Region(3, 0, 1, 1)))  # the right half of 京
    data = stage.frame()
    stream.feed(data)
    assert stage.lines()[0].startswith("ab x都cd")
    assert screen.display[0].startswith("ab x都cd")


async def test_the_app_repaints_everything_after_a_resume() -> None:
    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        stage = stage_of(app)
        stage.resize(80, 24)
        stage.frame()
        assert stage.frame() == ""
        app.app_resume_signal.publish(app)
        await pilot.pause()
        assert stage.frame().count("H") >= 24  # every row is written again


def test_equal_styles_keeping_different_codes_are_written_as_textual_writes_each() -> None:
    """Rich keeps a style's codes for the colour system it was first rendered with (a screenshot: truecolor), so
    two equal styles can carry different codes; the stage writes each cell's own, as Textual's output does."""
    fresh, drawn = Style(color="#102030", bgcolor="#d0e0f0"), Style(color="#102030", bgcolor="#d0e0f0")
    assert fresh == drawn
    drawn.render("x", color_system=ColorSystem.TRUECOLOR)  # what the screenshot's console leaves on it
    update = LayoutUpdate([[Strip([Segment("ab", fresh), Segment("cd", drawn)])]], Region(0, 0, 4, 1))
    console = Console(file=io.StringIO(), force_terminal=True, color_system="256")
    intended, intended_stream = emulator(Size(4, 1))
    intended_stream.feed(update.render_segments(console))
    stage = OutputStage(4, 1, color_system=ColorSystem.EIGHT_BIT)
    stage.apply(update)
    staged, staged_stream = emulator(Size(4, 1))
    staged_stream.feed(stage.frame())
    assert cells(staged) == cells(intended)
    assert cells(intended)[0][0][1] != cells(intended)[0][2][1]  # Textual wrote two different colours
