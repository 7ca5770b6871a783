"""Sixel and iTerm2 pictures kept over their widgets (`tui/chat/attachments/painter.py`): painted where the
widget is wholly in view, uncovered and still; painted again after a frame that redraws its cells; dropped —
and the screen cleared at the next frame — when a frame moves it, hides it or draws over it; painted again once
it has held still. The frames are an `OutputStage`'s (what each wrote), the app a real Textual app."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from visindigo.tui.chat.attachments import painter as painting
from visindigo.tui.chat.attachments.painter import PixelImages
from visindigo.tui.platform import graphics, output_stage
from visindigo.tui.platform.output_stage import OutputStage


class Pictured(App[None]):
    """A picture's widget at a known place: 20 × 5 cells from column 10, row 2, in a scrolling pane."""

    CSS = """
    VerticalScroll { height: 20; }
    #picture { margin: 2 0 0 10; width: 20; height: 5; }
    #below { height: 40; }
    #notice { layer: above; dock: top; offset: 15 3; width: 10; height: 1; display: none; }
    Screen { layers: below above; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="picture")
            yield Static(id="below")
        yield Static("notice", id="notice")


def staged(app: App[None]) -> OutputStage:
    """The stage the painter asks to clear the screen (a headless app has none of its own)."""
    stage = OutputStage(80, 24)
    output_stage._stages[app] = stage
    return stage


async def shown_picture(pilot: Pilot[None]) -> tuple[Widget, PixelImages, OutputStage]:
    """The picture's widget, a painter keeping a picture over it (painted at once) and the stage of the frames."""
    await pilot.pause()
    owner = pilot.app.query_one("#picture")
    painter, stage = PixelImages(pilot.app, graphics.SIXEL), staged(pilot.app)
    painter.show(owner, 20, 5, "<picture>")
    return owner, painter, stage


async def frame_then_wait(painter: PixelImages, stage: OutputStage, *runs: tuple[int, int, int]) -> None:
    """A frame that wrote `runs`, then time for a picture whose place it did not move to have held still."""
    frame(stage, *runs)
    painter.after_frame(stage)
    await asyncio.sleep(painting.STILL_SECONDS * 1.5)


def frame(stage: OutputStage, *runs: tuple[int, int, int]) -> None:
    stage.frame()  # (clears a pending erase: each test reads `stage.frame()` right after the drop it checks)
    stage.written = list(runs)


async def test_a_still_picture_is_painted_at_once_and_again_after_a_frame_that_redraws_its_cells() -> None:
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        assert painter.shown(owner) is not None and tuple(painter.shown(owner)) == (10, 2, 20, 5)
        frame(stage, (0, 0, 80), (1, 0, 80), (7, 0, 80))  # rows above and below it
        assert painter.after_frame(stage) == ""
        frame(stage, (4, 0, 9))  # its row, left of it
        assert painter.after_frame(stage) == ""
        frame(stage, (4, 25, 40))  # into it
        assert painter.after_frame(stage) == "\x1b7\x1b[3;11H<picture>\x1b8"
        assert painter.shown(owner) is not None


async def test_a_picture_made_for_another_size_or_reaching_the_last_row_is_not_painted() -> None:
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        owner = app.query_one("#picture")
        painter = PixelImages(app, graphics.SIXEL)
        painter.show(owner, 20, 4, "<made for 20 × 4>")
        assert painter.shown(owner) is None
        owner.styles.margin = (19, 0, 0, 10)  # its last row on the screen's last row: a sixel there scrolls it
        app.query_one(VerticalScroll).styles.height = 24
        await pilot.pause()
        painter.show(owner, 20, 5, "<picture>")
        assert painter.shown(owner) is None


async def test_a_moved_picture_is_wiped_and_painted_at_its_new_place_once_it_holds_still() -> None:
    """A scroll by one line moves it: the frame that moved it drops it (the next frame clears the screen and
    writes every cell) and, `STILL_SECONDS` after the last frame that moved anything, it is painted again."""
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        app.query_one(VerticalScroll).scroll_to(y=1, animate=False)
        await pilot.pause()
        frame(stage, (1, 0, 80))
        assert painter.after_frame(stage) == ""  # not painted at its old cells
        assert painter.shown(owner) is None
        assert stage.frame().startswith("\x1b[0m\x1b[2J")  # the next frame clears what it left
        for _ in range(4):  # a stream goes on moving it, a frame every tenth of a second
            await asyncio.sleep(painting.STILL_SECONDS / 3)
            frame(stage, (1, 0, 80))
            assert painter.after_frame(stage) == "" and painter.shown(owner) is None
        await asyncio.sleep(painting.STILL_SECONDS / 2)
        assert painter.shown(owner) is None  # not yet still long enough
        await asyncio.sleep(painting.STILL_SECONDS)
        assert painter.shown(owner) is not None and tuple(painter.shown(owner)) == (10, 1, 20, 5)


async def test_a_picture_partly_scrolled_out_of_view_waits_in_half_blocks() -> None:
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        app.query_one(VerticalScroll).scroll_to(y=4, animate=False)  # its top three rows above the pane
        await pilot.pause()
        await frame_then_wait(painter, stage, (0, 0, 80))
        assert painter.shown(owner) is None
        app.query_one(VerticalScroll).scroll_to(y=0, animate=False)
        await pilot.pause()
        await frame_then_wait(painter, stage, (0, 0, 80))
        assert painter.shown(owner) is not None


async def test_a_notice_over_the_picture_drops_it_until_the_notice_goes() -> None:
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        notice = app.query_one("#notice")
        notice.display = True
        await pilot.pause()
        frame(stage, (3, 15, 25))  # the notice's cells, inside the picture
        assert painter.after_frame(stage) == ""  # not painted over the notice
        assert painter.shown(owner) is None
        await asyncio.sleep(painting.STILL_SECONDS * 1.5)
        assert painter.shown(owner) is None  # still covered
        notice.display = False
        await pilot.pause()
        await frame_then_wait(painter, stage, (3, 15, 25))
        assert painter.shown(owner) is not None


async def test_a_picture_whose_screen_is_covered_or_which_is_removed_is_wiped() -> None:
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        app.push_screen(ModalScreen())
        await pilot.pause()
        frame(stage, (0, 0, 80))
        assert painter.after_frame(stage) == ""  # its screen no longer shown
        assert stage.frame().startswith("\x1b[0m\x1b[2J")
        app.pop_screen()
        await pilot.pause()
        await frame_then_wait(painter, stage, (0, 0, 80))
        assert painter.shown(owner) is not None
        stage.frame()
        painter.remove(owner)
        assert painter.shown(owner) is None and stage.frame().startswith("\x1b[0m\x1b[2J")
        frame(stage, (3, 0, 80))
        assert painter.after_frame(stage) == ""


async def test_frames_elsewhere_do_not_keep_a_still_picture_waiting() -> None:
    """A reply streaming in another part of the screen draws frames all the time; the picture that has held still
    is painted STILL_SECONDS after it last moved, not after the last frame."""
    app = Pictured()
    async with app.run_test(size=(80, 24)) as pilot:
        owner, painter, stage = await shown_picture(pilot)
        app.query_one(VerticalScroll).scroll_to(y=1, animate=False)
        await pilot.pause()
        frame(stage, (1, 0, 80))
        painter.after_frame(stage)
        for _ in range(6):  # 0.6 s of frames below it
            await asyncio.sleep(painting.STILL_SECONDS / 3)
            frame(stage, (20, 0, 80))
            painter.after_frame(stage)
        assert painter.shown(owner) is not None


async def test_a_full_size_picture_that_does_not_decode_says_so_where_its_pixels_would_be(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a sixel terminal the full-size view leaves its cells blank for the pixels; a picture damaged since it was
    attached cannot be made, and the view says why in one line there instead of staying blank."""
    from visindigo.engine.attachments import Attachment, AttachmentKind
    from visindigo.tui.chat.attachments import full_size
    from visindigo.tui.chat.attachments.full_size import FullPicture, PictureScreen

    painters: dict[int, PixelImages] = {}

    def sixel_painter(app: App[None]) -> PixelImages:
        return painters.setdefault(id(app), PixelImages(app, graphics.SIXEL))

    monkeypatch.setattr(painting, "painter_for", sixel_painter)
    monkeypatch.setattr(full_size, "painter_for", sixel_painter)
    broken = Attachment("cut.png", AttachmentKind.IMAGE, "image/png", b"\x89PNG\r\n\x1a\n" + b"\0" * 40, 64, 32)
    app = App[None]()
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(PictureScreen(broken))
        await pilot.pause()
        view = app.screen.query_one(FullPicture)

        def said() -> bool:
            return "cannot be drawn" in str(view.render())

        for _ in range(100):
            if said():
                break
            await pilot.pause(0.05)
        assert said()
