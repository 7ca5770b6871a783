"""Attaching files and MCP resources to the next message.

Files (`FileAttaching`): from the `@` list, the folder tree (alt+u) or a pasted path. Reading happens in a thread
(a file is read whole and an image decoded and scaled: never on the event loop). Whatever is wrong with a file
is one line (`AttachmentError`), and nothing changes — the typed message stays in the composer, the other chips
stay. A text file over the limit asks first whether to attach its first part: never a silent cut.

Resources (`ResourceAttaching`): the same `@` list (the MCP feature's picker, one list for both), reading the
chosen resource, refreshing it while it waits when the server says it changed.

What is pending is the workbench's (`workbench.pending_files`, `workbench.pending_resources`), shown as the
chips over the composer; it goes into the message when the message is sent, whoever sends it."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench.events import AttachmentsChanged

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

    from visindigo.engine.attachments import Attachment, AttachmentTooLarge, ImageLimits
    from visindigo.engine.mcp.resources import ResourceContent
    from visindigo.engine.mcp_server import MCPServer
    from visindigo.tui.chat.composer import Composer


class PickedResource(Protocol):
    """An MCP resource the user picked to attach."""

    @property
    def server(self) -> MCPServer: ...
    @property
    def uri(self) -> str: ...
    @property
    def label(self) -> str: ...


@runtime_checkable
class PickedFile(Protocol):
    """A file of the `@` list the user picked: its path relative to the start folder."""

    @property
    def path(self) -> str: ...


Picked = PickedResource | PickedFile
#: The MCP feature's picker: (app, the dialog's servers, the start folder, what to call with the choice).
Picker = Callable[["App[Any]", "list[MCPServer]", str, Callable[[Picked | None], None]], None]


class ResourceAttaching:
    """The main screen's part that attaches resources to the shown dialog's next message."""

    def __init__(self, screen: Screen[Any], workbench: Workbench, composer: Composer, files: FileAttaching) -> None:
        self.screen = screen
        self.workbench = workbench
        self.composer = composer
        self.files = files

    def servers(self) -> list[MCPServer]:
        return [server for server in self.workbench.shown.effective_mcp_servers() if server.enabled]

    def open_picker(self, install_tool_source: Callable[[], None], pick: Picker) -> None:
        """The one list (`pick`, the MCP feature's): the files under the start folder and the resources of the
        shown dialog's servers, their manager made first."""
        servers = self.servers()
        if servers:
            install_tool_source()
        pick(self.screen.app, servers, self.files.start_folder, self._picked)

    def _picked(self, picked: Picked | None) -> None:
        text = self.composer.text
        if text.endswith("@"):  # the `@` that opened the picker is not part of the message
            self.composer.input.load_text(text[:-1])
            self.composer.input.move_cursor(self.composer.input.document.end)
        if isinstance(picked, PickedFile):
            self.files.attach([picked.path])
        elif picked is not None:
            dialog_id = self.workbench.shown.id
            self.screen.run_worker(self._read(picked, dialog_id), group="resource", exit_on_error=False)

    async def _read(self, picked: PickedResource, dialog_id: str) -> None:
        from visindigo.engine.mcp import MCPManager, MCPServerError

        manager = self.workbench.center.tool_source
        if not isinstance(manager, MCPManager):
            return  # (the picker made the manager before it opened; it is gone only if the app is leaving)
        try:
            content: ResourceContent = await manager.read_resource(picked.server, picked.uri)
        except MCPServerError as error:
            self.screen.notify(str(error), severity="error", markup=False)
            return
        pending = self.workbench.pending_resources.setdefault(dialog_id, [])
        pending.append(content)
        self.workbench.emit(AttachmentsChanged(dialog_id))
        self.screen.notify(f"{picked.label} will go with your next message ({len(pending)} attached).", markup=False)

        def changed(uri: str) -> None:
            if any(item.uri == uri for item in self.workbench.pending_resources.get(dialog_id, [])):
                self.screen.run_worker(self._refresh(picked, dialog_id), group="resource", exit_on_error=False)

        await manager.subscribe_resource(picked.server, picked.uri, changed)

    async def _refresh(self, picked: PickedResource, dialog_id: str) -> None:
        from visindigo.engine.mcp import MCPManager, MCPServerError

        manager = self.workbench.center.tool_source
        if not isinstance(manager, MCPManager):
            return
        try:
            fresh = await manager.read_resource(picked.server, picked.uri)
        except MCPServerError:
            return
        pending = self.workbench.pending_resources.get(dialog_id, [])
        for position, item in enumerate(pending):
            if item.uri == fresh.uri:
                pending[position] = fresh
        self.screen.notify(f"{picked.label} changed; the attachment was refreshed.", markup=False)


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
        from visindigo.tui.chat.attachments.full_size import PictureScreen
        from visindigo.tui.chat.attachments.lines import images_of

        messages = self.workbench.shown.messages
        order = [index] if index is not None else list(range(len(messages) - 1, -1, -1))
        for position in order:
            images = images_of(messages[position]) if 0 <= position < len(messages) else []
            if images:
                self.screen.app.push_screen(PictureScreen(images[0]))
                return
        self.screen.notify("No image here: the message at the cursor (or the latest one) has none.")
