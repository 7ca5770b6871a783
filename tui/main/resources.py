"""Attaching MCP resources to the next message: the picker (`@` in the composer, or the palette), reading the
chosen resource, refreshing it while it waits when the server says it changed. What is pending is the
workbench's (`workbench.attachments`); it goes into the message when the message is sent (text as context,
images as images, the URI in the message's meta — stored with it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from visindigo.tui.workbench import Workbench

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

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


class ResourceAttaching:
    """The main screen's part that attaches resources to the shown dialog's next message."""

    def __init__(self, screen: Screen[Any], workbench: Workbench, composer: Composer) -> None:
        self.screen = screen
        self.workbench = workbench
        self.composer = composer

    def servers(self) -> list[MCPServer]:
        return [server for server in self.workbench.shown.effective_mcp_servers() if server.enabled]

    def open_picker(
        self,
        install_tool_source: Callable[[], None],
        pick: Callable[[App[Any], list[MCPServer], Callable[[PickedResource | None], None]], None],
    ) -> None:
        """The picker (`pick`, the MCP feature's) on the shown dialog's servers, their manager made first."""
        servers = self.servers()
        if not servers:
            self.screen.notify(
                "This dialog has no MCP servers, so there are no resources to attach.", severity="warning"
            )
            return
        install_tool_source()
        pick(self.screen.app, servers, self._picked)

    def _picked(self, picked: PickedResource | None) -> None:
        text = self.composer.text
        if text.endswith("@"):  # the `@` that opened the picker is not part of the message
            self.composer.input.load_text(text[:-1])
            self.composer.input.move_cursor(self.composer.input.document.end)
        if picked is not None:
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
