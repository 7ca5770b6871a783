"""Attaching MCP resources to the next message: the picker (`@` in the composer, or the palette), reading the
chosen resource, refreshing it while it waits when the server says it changed, and putting it into the message
when it is sent (text as context, images as images, the URI in the message's meta — stored with it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work

from .main_base import MainBase

if TYPE_CHECKING:
    from visindigo.engine import Message
    from visindigo.engine.mcp.resources import ResourceContent

    from .resource_picker import PickedResource


class ResourcesPart(MainBase):
    """`pending_resources[dialog_id]`: what the next message of that dialog will carry."""

    pending_resources: dict[str, list[ResourceContent]]

    def _servers(self) -> list[Any]:
        return [server for server in self.dialog.effective_mcp_servers() if server.enabled]

    def action_attach_resource(self) -> None:
        servers = self._servers()
        if not servers:
            self.notify("This dialog has no MCP servers, so there are no resources to attach.", severity="warning")
            return
        from .resource_picker import ResourcePickerScreen

        self.visindigo.install_tool_source()
        self.app.push_screen(ResourcePickerScreen(self.center.tool_source, servers), callback=self._picked)

    def on_composer_input_resource_requested(self, event: Any) -> None:
        """`@` typed where a word starts: open the picker if this dialog has servers, else it is just an `@`."""
        if self._servers():
            self.action_attach_resource()

    def _picked(self, picked: PickedResource | None) -> None:
        text = self.composer.text
        if text.endswith("@"):  # the `@` that opened the picker is not part of the message
            self.composer.input.load_text(text[:-1])
            self.composer.input.move_cursor(self.composer.input.document.end)
        if picked is not None:
            self._read_resource(picked, self.dialog.id)

    @work(group="resource", exit_on_error=False)
    async def _read_resource(self, picked: PickedResource, dialog_id: str) -> None:
        from visindigo.engine.mcp import MCPServerError

        manager: Any = self.center.tool_source
        try:
            content: ResourceContent = await manager.read_resource(picked.server, picked.uri)
        except MCPServerError as error:
            self.notify(str(error), severity="error", markup=False)
            return
        pending = self.pending_resources.setdefault(dialog_id, [])
        pending.append(content)
        self.notify(f"{picked.label} will go with your next message ({len(pending)} attached).", markup=False)

        def changed(uri: str) -> None:
            if any(item.uri == uri for item in self.pending_resources.get(dialog_id, [])):
                self._refresh_resource(picked, dialog_id)

        await manager.subscribe_resource(picked.server, picked.uri, changed)

    @work(group="resource", exit_on_error=False)
    async def _refresh_resource(self, picked: PickedResource, dialog_id: str) -> None:
        from visindigo.engine.mcp import MCPServerError

        manager: Any = self.center.tool_source
        try:
            fresh = await manager.read_resource(picked.server, picked.uri)
        except MCPServerError:
            return
        pending = self.pending_resources.get(dialog_id, [])
        for position, item in enumerate(pending):
            if item.uri == fresh.uri:
                pending[position] = fresh
        self.notify(f"{picked.label} changed; the attachment was refreshed.", markup=False)

    def attach_pending(self, message: Message) -> Message:
        """Put this dialog's pending resources into `message` (once: they are then no longer pending)."""
        pending = self.pending_resources.pop(self.dialog.id, [])
        if pending:
            from visindigo.engine.mcp.resources import attach

            images = self._model_takes_images()
            for content in pending:
                attach(message, content, images=images)
        return message

    def _model_takes_images(self) -> bool:
        """Whether the dialog's model (as far as it is known) accepts images; unknown models are asked to."""
        from visindigo.engine import Capability

        dialog = self.dialog
        provider = self.center.get_provider(dialog.provider_id) if dialog.provider_id else self.center.default_provider
        if provider is None:
            return False
        model = next((m for m in provider.models if m.id == dialog.model_id), None)
        if model is None:
            return any(Capability.IMAGE in m.capabilities for m in provider.models) or not provider.models
        return Capability.IMAGE in model.capabilities
