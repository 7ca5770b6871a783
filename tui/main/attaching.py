"""Attaching files to the next message: from the `@` list, the folder tree (alt+o) or a pasted path.

Reading happens in a thread (a file is read whole and an image decoded: never on the event loop). Whatever is
wrong with a file is one line (`AttachmentError`), and nothing changes — the typed message stays in the
composer, the other chips stay. A text file over the limit asks first whether to attach its first part: never a
silent cut. What is attached waits in the workbench (`workbench.pending_files`), which the chips show.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visindigo.tui.workbench import Workbench

if TYPE_CHECKING:
    from textual.screen import Screen

    from visindigo.engine.attachments import Attachment, AttachmentTooLarge, ImageLimits
    from visindigo.tui.chat.composer import Composer


#: Files larger than this get a "Reading …" notice while they are read (an image is also decoded and scaled).
SLOW_BYTES = 2_000_000


class FileAttaching:
    """The main screen's part that reads files into the shown dialog's next message."""

    def __init__(self, screen: Screen[Any], workbench: Workbench, composer: Composer, start_folder: str) -> None:
        self.screen = screen
        self.workbench = workbench
        self.composer = composer
        #: Where relative paths are read from and what the `@` list shows: the folder the app was started in.
        self.start_folder = start_folder
        composer.input.start_folder = start_folder

    def open_tree(self) -> None:
        from visindigo.tui.common.file_picker import FilePickerScreen

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.attach([os.fspath(path)])

        self.screen.app.push_screen(FilePickerScreen(self.start_folder), callback=chosen)

    def attach(self, paths: list[str]) -> None:
        """Read each path (in a thread) and attach what can be; say why for each that cannot."""
        dialog_id = self.workbench.shown.id
        limit, room, images = self._limits()
        self.screen.run_worker(
            lambda: self._read(paths, dialog_id, limit, room, images),
            thread=True,
            group="attach-file",
            exit_on_error=False,
            description="reading an attached file",
        )

    def _limits(self) -> tuple[int, int | None, tuple[ImageLimits, ...]]:
        """The text limit (the provider's `attachment_text_limit`, else the default), the window's room, and the
        image limits to try: the dialog's provider's first, so the copy its request needs is made now, in the
        reading thread, and sending finds it ready."""
        from visindigo.engine.attachments import ALL_IMAGE_LIMITS, image_limits_for, text_limit, window_room

        dialog = self.workbench.shown
        center = self.workbench.center
        provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
        settings = provider.settings if provider is not None else None
        model = provider.get_model(dialog.model_id or provider.default_model) if provider is not None else None
        attached = self.workbench.pending_files.text_bytes(dialog.id)
        images = tuple(ALL_IMAGE_LIMITS)
        if provider is not None:
            images = (image_limits_for(provider.kind, settings), *images)
        return text_limit(settings), window_room(model, dialog.messages, attached=attached), images

    def _read(
        self, paths: list[str], dialog_id: str, limit: int, room: int | None, images: tuple[ImageLimits, ...]
    ) -> None:
        from visindigo.engine.attachments import AttachmentError, AttachmentTooLarge, read_attachment

        for path in paths:
            self._say_when_slow(path)
            try:
                attachment = read_attachment(
                    path, start_folder=self.start_folder, text_limit=limit, room=room, image_limits=images
                )
            except AttachmentTooLarge as large:
                self.screen.app.call_from_thread(self._offer_part, large, dialog_id)
            except AttachmentError as error:
                self.screen.app.call_from_thread(self._refused, error.message)
            else:
                self.screen.app.call_from_thread(self._add, attachment, dialog_id)

    def _say_when_slow(self, path: str) -> None:
        """A large image takes a second or more to check and scale: say it is being read, so nothing looks stuck."""
        try:
            size = os.path.getsize(os.path.join(self.start_folder, os.path.expanduser(path)))
        except OSError:
            return  # read_attachment says what is wrong
        if size > SLOW_BYTES:
            from visindigo.tui.common.sanitize import clean_line

            line = f"Reading {clean_line(os.path.basename(path), 60)}…"
            self.screen.app.call_from_thread(self.screen.notify, line, timeout=2, markup=False)

    def _add(self, attachment: Attachment, dialog_id: str) -> None:
        if not self.workbench.pending_files.add(dialog_id, attachment):
            self.screen.notify(f"{attachment.display_name} is attached already.", markup=False)

    def _refused(self, line: str) -> None:
        self.screen.notify(f"Not attached: {line}", severity="error", markup=False)

    def _offer_part(self, large: AttachmentTooLarge, dialog_id: str) -> None:
        from visindigo.tui.common.confirm import ConfirmScreen

        def answered(take: bool | None) -> None:
            if take:
                self._add(large.first_part(), dialog_id)

        self.screen.app.push_screen(
            ConfirmScreen("A long text file", f"{large.message}.", "Attach the first part", cancel_label="Leave it"),
            callback=answered,
        )

    def show_picture(self, index: int | None) -> None:
        """The first image of the message at `index` (or of the latest message with one) full size."""
        from visindigo.tui.chat.attachments.lines import PictureScreen, images_of

        messages = self.workbench.shown.messages
        order = [index] if index is not None else list(range(len(messages) - 1, -1, -1))
        for position in order:
            images = images_of(messages[position]) if 0 <= position < len(messages) else []
            if images:
                self.screen.app.push_screen(PictureScreen(images[0]))
                return
        self.screen.notify("No image here: the message at the cursor (or the latest one) has none.")
