"""The screens the main screen opens over itself: model picker, providers, MCP servers, skills, templates and
rename. Each is imported when first opened, so start-up does not load them."""

from __future__ import annotations

from textual import work

from visindigo.engine import Message

from .main_base import MainBase, title_for


class ModalsPart(MainBase):
    """Opening the other screens and applying what they return."""

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_pick_model(self) -> None:
        from .model_picker import ModelPickerScreen

        if not self.center.providers:
            self.notify("No provider is configured yet: f3 opens the providers.", severity="warning")
            return
        dialog = self.dialog
        picked = await self.app.push_screen_wait(
            ModelPickerScreen(
                self.center, dialog.provider_id, dialog.model_id, required=dialog.capability_requirement
            )
        )
        if picked is None:
            return
        provider_id, model_id = picked
        dialog.provider_id = provider_id
        dialog.model_id = model_id
        self.notify(f"This dialog now uses {model_id} ({provider_id}).", markup=False)
        self._refresh_status()

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_providers(self) -> None:
        from .providers import ProvidersScreen

        await self.app.push_screen_wait(ProvidersScreen(self.center, self.center.paths))
        self._refresh_status()

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_mcp_servers(self) -> None:
        from .mcp_servers import MCPServersScreen

        self.visindigo.install_tool_source()  # servers added here must have a manager to run them
        await self.app.push_screen_wait(MCPServersScreen(self.center))
        self._refresh_status()

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_skills(self) -> None:
        from .skills import SkillsScreen

        # A dialog not sent yet keeps its skills and is saved with them by its first message.
        await self.app.push_screen_wait(SkillsScreen(self.center, self.dialog))

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_package_tools(self) -> None:
        from .package_tools import PackageToolsScreen

        await self.app.push_screen_wait(PackageToolsScreen(self.center, self.dialog))
        self._refresh_status()

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_templates(self) -> None:
        from .template_library import TemplateLibraryScreen

        library = self.visindigo.template_library()
        result = await self.app.push_screen_wait(TemplateLibraryScreen(library, self.dialog))
        if result is None:
            return
        messages = list(getattr(result, "messages", ()) or (result.message,))
        await self.insert_template(messages, send=bool(result.send))

    async def insert_template(self, messages: list[Message], *, send: bool) -> None:
        """Add a filled template to the dialog and run it, or (edit first) put its text in the composer, from
        where Enter sends the edited text as the same template message (named after the template).

        Only a few-shot MCP prompt gives more than one message; all but the last go into the dialog either way.
        """
        dialog = self.dialog
        if self._refuse_while_running():
            return
        *earlier, last = messages
        if earlier or send:
            if not self._is_registered(dialog):
                self.center.add_dialog(dialog)
            if not dialog.title:
                dialog.title = title_for(last.content) or last.name
            for message in earlier + ([last] if send else []):
                dialog.append_message(message)
                await self.pane.message_added(dialog.message_count - 1)
            self.refresh_tree()
        if not send:
            self.composer.start_template(last)
            return
        await self.pane.clear_notice()
        self.pane.follow()
        self.start_run(dialog)

    @work(group="modal", exclusive=True, exit_on_error=False)
    async def action_rename(self) -> None:
        from .main_rename import RenameScreen

        if not self._is_registered(self.dialog):
            self.notify("Send a message first; a new dialog is named after it.", severity="warning")
            return
        title = await self.app.push_screen_wait(RenameScreen(self.dialog.title))
        if title is None:
            return
        self.center.rename_dialog(self.dialog.id, title)
        self.refresh_tree()
