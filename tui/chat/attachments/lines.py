"""What a message shows of its attached files: a line per file (name, kind, size — the name cleaned), and a
small picture under each image, drawn by the terminal where it can (`kitty`; sixel or iTerm2 pictures
over the half blocks while it holds still, `painter`; `tui/platform/graphics.py` decides), else in half blocks
(`cells`). `full_size.PictureScreen` shows one full size."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from visindigo.engine import Message
from visindigo.engine.attachments import Attachment, AttachmentKind
from visindigo.tui.chat.attachments import kitty
from visindigo.tui.chat.attachments.cells import cached_cells, cell_size, image_cells
from visindigo.tui.platform import graphics

if TYPE_CHECKING:
    from visindigo.tui.chat.attachments.painter import PixelImages

#: The picture in a message: small enough to keep the dialog readable at 80×24.
PREVIEW_COLUMNS = 24
PREVIEW_ROWS = 6


class Picture(Static):
    """An attached image, at most `columns` × `rows` cells, made in a thread: decoding a 4K screenshot takes a few
    hundred milliseconds that the event loop must not wait for. Until then the picture's place is kept blank,
    so the dialog does not move when it appears.

    On a terminal that shows kitty graphics the image is sent to it once (scaled, as a PNG) and the cells hold
    its placeholders; the image is deleted from the terminal when the widget goes. Elsewhere: half blocks."""

    DEFAULT_CSS = """
    Picture {
        width: auto;
        height: auto;
    }
    """

    def __init__(self, attachment: Attachment, columns: int = PREVIEW_COLUMNS, rows: int = PREVIEW_ROWS) -> None:
        drawn = cached_cells(attachment.sha256, columns, rows)  # drawn before: shown at once (never in kitty mode)
        if drawn is None:
            width, height = cell_size(attachment.width, attachment.height, columns, rows)
            drawn = Content("\n".join(" " * width for _ in range(height)))
        super().__init__(drawn, classes="picture")
        self.attachment = attachment
        self.columns = columns
        self.rows = rows
        #: The id of the image this widget sent to the terminal (None: cells, or not sent yet).
        self.image_id: int | None = None

    def on_mount(self) -> None:
        self.begin()

    def on_unmount(self) -> None:
        self.end()

    def begin(self) -> None:
        """Start making the picture (mounted: the app and its terminal are known)."""
        images = graphics.images_for(self.app)
        if images is not None:
            self.run_worker(lambda: self._scale(images), thread=True, exit_on_error=False, group="picture")
            return
        if cached_cells(self.attachment.sha256, self.columns, self.rows) is None:
            self.run_worker(self._draw, thread=True, exit_on_error=False, group="picture")
        from visindigo.tui.chat.attachments.painter import painter_for  # (a dialog with a picture: not at start)

        found = painter_for(self.app)
        if found is not None:  # sixel or iTerm2: painted over the half blocks whenever it holds still
            columns, rows = cell_size(self.attachment.width, self.attachment.height, self.columns, self.rows)
            self.paint(found, columns, rows)

    def end(self) -> None:
        """Take the picture off the terminal (unmounted)."""
        images = graphics.images_for(self.app)
        if self.image_id is not None and images is not None:
            images.hide(self.image_id, kitty.delete(self.image_id))
        self.image_id = None
        from visindigo.tui.chat.attachments.painter import painter_for

        found = painter_for(self.app)
        if found is not None:
            found.remove(self)

    def paint(self, painter: PixelImages, columns: int, rows: int) -> None:
        """Have the picture made for `columns` × `rows` cells in a thread, then kept over this widget."""
        from visindigo.tui.chat.attachments import pixels

        attachment, cell = self.attachment, graphics.cell_pixels()

        def make() -> None:
            try:
                data = pixels.picture(painter.path, attachment.sha256, attachment.data, columns, rows, cell)
            except (OSError, ValueError):
                self.cannot_paint()
                return
            self.app.call_from_thread(self._keep, painter, columns, rows, data)

        self.run_worker(make, thread=True, exit_on_error=False, group="picture")

    def cannot_paint(self) -> None:
        """The picture does not decode (damaged since it was attached): the half blocks, on their way, say so in
        one line. From the thread that tried."""

    def _keep(self, painter: PixelImages, columns: int, rows: int, data: str) -> None:
        if self.is_mounted:
            painter.show(self, columns, rows, data)

    def _draw(self) -> None:
        attachment = self.attachment
        drawn = image_cells(attachment.sha256, attachment.data, self.columns, self.rows)
        self.app.call_from_thread(self.update, drawn)

    def _scale(self, images: graphics.TerminalImages) -> None:
        attachment = self.attachment
        try:
            png, columns, rows = kitty.scaled_png(attachment.sha256, attachment.data, self.columns, self.rows)
        except (OSError, ValueError):  # the half-block path says in one line why it cannot be drawn
            self._draw()
            return
        self.app.call_from_thread(self._send, images, png, columns, rows)

    def _send(self, images: graphics.TerminalImages, png: bytes, columns: int, rows: int) -> None:
        """On the event loop's thread, between two frames: the upload goes out before the frame that first
        draws its placeholders."""
        if not self.is_mounted or self.image_id is not None:
            return
        image_id = images.new_id()
        if not images.show(image_id, kitty.transmit(image_id, png, columns, rows)):
            self.run_worker(self._draw, thread=True, exit_on_error=False, group="picture")
            return
        self.image_id = image_id
        self.update(kitty.placeholder_cells(image_id, columns, rows))


def attachment_widgets(message: Message) -> Iterator[Widget]:
    """The line of each attached file, with its picture under an image."""
    for attachment in message.attachments:
        yield Static(Content.assemble(("▣ ", "dim"), attachment.label()), classes="plain attachment")
        if attachment.kind is AttachmentKind.IMAGE:
            yield Picture(attachment)


def images_of(message: Message) -> list[Attachment]:
    return [a for a in message.attachments if a.kind is AttachmentKind.IMAGE]
