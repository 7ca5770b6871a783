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
from textual.screen import ModalScreen
from textual.widgets import Static

from visindigo.engine.attachments import Attachment
from visindigo.tui.chat.attachments.lines import Picture
from visindigo.tui.chat.attachments.painter import painter_for


class FullPicture(Picture):
    """The picture of `PictureScreen`: as `Picture`; on a sixel or iTerm2 terminal its cells are left blank and
    the picture is made for the cells the view gives it once it is laid out."""

    def begin(self) -> None:
        found = painter_for(self.app)
        if found is None:
            super().begin()
            return
        self.call_after_refresh(lambda: self.paint(found, self.content_region.width, self.content_region.height))

    def cannot_paint(self) -> None:
        self._draw()  # (its cells were left blank for the pixels: the line saying why goes there)


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
