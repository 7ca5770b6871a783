"""Attaching MCP resources to the next message: the picker (`@` in the composer, alt+a, or the palette) — the
same list as the files under the start folder, whose choice goes on to `attaching` — reading the chosen
resource, refreshing it while it waits when the server says it changed. What is pending is the workbench's
(`workbench.pending_resources`); it goes into the message when the message is sent (text as context, images as
images, the URI in the message's meta — stored with it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench.events import AttachmentsChanged

if TYPE_CHECKING:
    from textual.screen import Screen

    from visindigo.engine.mcp.resources import ResourceContent
    from visindigo.tui.chat.composer import Composer
    from visindigo.tui.main.attaching import FileAttaching
    from visindigo.tui.mcp.resource_picker import PickedFile, PickedResource


class ResourceAttaching:
    """The main screen's part that attaches resources to the shown dialog's next message."""

    def __init__(self, screen: Screen[Any], workbench: Workbench, composer: Composer, files: FileAttaching) -> None:
        self.screen = screen
        self.workbench = workbench
        self.composer = composer
        self.files = files

    def servers(self) -> list[Any]:
        return [server for server in self.workbench.shown.effective_mcp_servers() if server.enabled]

    def open_picker(self, install_tool_source: Any) -> None:
        """The one list: the files under the start folder, and the resources of the dialog's servers."""
        from visindigo.tui.mcp.resource_picker import ResourcePickerScreen

        servers = self.servers()
        if servers:
            install_tool_source()
        source = self.workbench.center.tool_source if servers else None
        picker = ResourcePickerScreen(source, servers, start_folder=self.files.start_folder)
        self.screen.app.push_screen(picker, callback=self._picked)

    def _picked(self, picked: PickedResource | PickedFile | None) -> None:
        from visindigo.tui.mcp.resource_picker import PickedFile

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
        from visindigo.engine.mcp import MCPServerError

        manager: Any = self.workbench.center.tool_source
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
        from visindigo.engine.mcp import MCPServerError

        manager: Any = self.workbench.center.tool_source
        try:
            fresh = await manager.read_resource(picked.server, picked.uri)
        except MCPServerError:
            return
        pending = self.workbench.pending_resources.get(dialog_id, [])
        for position, item in enumerate(pending):
            if item.uri == fresh.uri:
                pending[position] = fresh
        self.screen.notify(f"{picked.label} changed; the attachment was refreshed.", markup=False)
