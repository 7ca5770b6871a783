"""What leaves the app: copying through OSC 52 with save-to-file as the fallback, and links, which open only
after the user confirmed them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work

from ..clipboard import file_stem, save_text
from ..widgets.message_pane import MessagePane
from .main_base import MainBase

if TYPE_CHECKING:
    from textual.widgets import Markdown


class CopyPart(MainBase):
    """Copy, save, and confirm links."""

    @on(MessagePane.CopyRequested)
    def _copy_requested(self, event: MessagePane.CopyRequested) -> None:
        if event.save:
            self.save_text(event.text, event.what)
        else:
            self.copy_text(event.text, event.what)

    def copy_text(self, text: str, what: str) -> None:
        """Copy through OSC 52, tmux's buffer and the system clipboard as available; the notice says which."""
        if not text:
            self.notify(f"The {what} is empty; nothing copied.", severity="warning")
            return
        self.app.copy_to_clipboard(text)  # OSC 52, always: over SSH the only way to the user's own machine
        self.visindigo.last_copied = (text, what)
        self._copy_everywhere(text, what, self.app.is_web)

    @work(group="copy", exclusive=True, exit_on_error=False, thread=True)
    def _copy_everywhere(self, text: str, what: str, web: bool) -> None:
        # a thread: tmux and the clipboard tools are subprocesses, which must not hold up the screen
        from ..copying import copy_text

        result = copy_text(text, what, web=web)
        self.app.call_from_thread(self.notify, result.notice, markup=False)

    def save_text(self, text: str, what: str) -> Path | None:
        directories = [Path.cwd()]
        if self.center.paths is not None:
            directories.append(self.center.paths.data_dir / "clips")
        try:
            path = save_text(text, directories, file_stem(self.dialog.title, what))
        except OSError as error:
            self.notify(str(error), severity="error", markup=False)
            return None
        self.notify(f"Saved the {what} to {path}", markup=False)
        return path

    def action_copy_last(self) -> None:
        index = self.dialog.find_last_assistant_message()
        if index < 0:
            self.notify("There is no answer to copy yet.", severity="warning")
            return
        message = self.dialog.message_at(index)
        from ..sanitize import clean

        self.copy_text(clean(message.content), "last answer")

    def action_save_last_copy(self) -> None:
        copied = self.visindigo.last_copied
        if copied is None:
            self.notify("Nothing was copied yet.", severity="warning")
            return
        self.save_text(*copied)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Links in model text never open by themselves (Markdown(open_links=False)): ask first."""
        event.stop()
        self._confirm_link(event.href)

    @work(group="link", exclusive=True, exit_on_error=False)
    async def _confirm_link(self, href: str) -> None:
        from ..sanitize import clean
        from .confirm import ConfirmScreen

        href = clean(href)
        if await self.app.push_screen_wait(
            ConfirmScreen("Open link?", f"The model's text links to:\n\n{href}\n\nOpen it in your browser?", "Open")
        ):
            self.app.open_url(href)
