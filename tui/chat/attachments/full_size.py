"""One attached image as large as the screen allows (alt+i): drawn by kitty's placeholders, by sixel or iTerm2's
inline images where the terminal paints those (`tui/platform/graphics.py` decides), else in half blocks.

Sixel and iTerm2 pictures are pixels painted at the cursor, so they are made for the cells the picture takes on
the screen once it is laid out, and made again when the window's size changes (the view is composed anew for
the new size)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import Static

from visindigo.engine.attachments import Attachment
from visindigo.tui.chat.attachments import kitty, pixels
from visindigo.tui.chat.attachments.lines import Picture
from visindigo.tui.platform import graphics


class FullPicture(Picture):
    """The picture of `PictureScreen`: as `Picture`, or painted by the terminal as sixel or an iTerm2 image."""

    def begin(self) -> None:
        painter = graphics.pixels_for(self.app)
        if painter is None:
            super().begin()
            return
        self.call_after_refresh(self._measure, painter)

    def end(self) -> None:
        painter = graphics.pixels_for(self.app)
        if painter is not None:
            painter.remove(self)
        super().end()

    def _measure(self, painter: graphics.PixelImages) -> None:
        """Laid out and drawn (blank): where the picture goes and how many pixels a cell has are known now."""
        region = self.content_region
        cell = graphics.cell_pixels()
        self.run_worker(lambda: self._encode(painter, region, cell), thread=True, exit_on_error=False, group="picture")

    def _encode(self, painter: graphics.PixelImages, region: Region, cell: tuple[int, int]) -> None:
        attachment = self.attachment
        try:
            if painter.path == graphics.SIXEL:
                image = pixels.sixel_image(attachment.data, region.width * cell[0], region.height * cell[1])
                data = pixels.sixel(image)
            else:
                png, _, _ = kitty.scaled_png(attachment.sha256, attachment.data, region.width, region.height)
                data = pixels.iterm_inline(png, region.width, region.height)
        except (OSError, ValueError):  # the half-block path says in one line why it cannot be drawn
            self._draw()
            return
        self.app.call_from_thread(self._place, painter, region, data)

    def _place(self, painter: graphics.PixelImages, region: Region, data: str) -> None:
        if not self.is_mounted or self.content_region != region:
            return  # gone, or moved: the view composed anew for the new size makes its own
        if not painter.place(self, region.x, region.y, region.width, region.height, data):
            self.run_worker(self._draw, thread=True, exit_on_error=False, group="picture")


class PictureScreen(ModalScreen[None]):
    """One attached image as large as the screen allows; esc or enter closes it."""

    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close")]

    DEFAULT_CSS = """
    PictureScreen {
        align: center middle;
    }
    PictureScreen > Vertical {
        width: auto;
        height: auto;
        background: $surface;
        padding: 0 1;
    }
    PictureScreen .name {
        color: $text-muted;
    }
    """

    def __init__(self, attachment: Attachment) -> None:
        super().__init__()
        self.attachment = attachment
        self.made_for = (0, 0)

    def compose(self) -> ComposeResult:
        self.made_for = (self.app.size.width, self.app.size.height)
        columns = max(8, self.app.size.width - 4)
        rows = max(4, self.app.size.height - 3)
        with Vertical():
            yield Static(Content(f"{self.attachment.label()} · esc closes"), classes="name")
            yield FullPicture(self.attachment, columns, rows)

    def on_resize(self, event: events.Resize) -> None:
        """A new window size: the picture is made again to fill it."""
        if (event.size.width, event.size.height) != self.made_for:
            self.refresh(recompose=True)
