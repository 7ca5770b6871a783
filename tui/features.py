"""The feature packages' screens as the main screen opens them (`main.launchers.FeatureScreens`).

`tui/main` imports none of setup, MCP, templates or compare (tests/test_import_graph.py keeps it so); the app
hands the main screen this object, which does. Each screen's module is imported when the screen is first
opened, so start-up loads none of them (tests/test_startup_deferrals.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from visindigo.engine import Center, Dialog, Message

if TYPE_CHECKING:
    from textual.app import App

    from visindigo.engine.mcp_server import MCPServer
    from visindigo.tui.common.help import HelpSection
    from visindigo.tui.main.resources import PickedResource
    from visindigo.tui.main.workspace import Workspace
    from visindigo.tui.start.template_folder import TemplateFolder
    from visindigo.tui.workbench import Workbench


class Features:
    """The screens of setup, MCP, templates and compare, over the app's template folder and MCP manager."""

    def __init__(self, center: Center, templates: TemplateFolder, install_tool_source: Callable[[], None]) -> None:
        self.center = center
        self.templates = templates
        self.install_tool_source = install_tool_source

    async def pick_model(self, app: App[Any], workbench: Workbench) -> str:
        from visindigo.tui.setup.model_picker import COMPARE, ModelPickerScreen

        center = workbench.center
        if not center.providers:
            app.notify("No provider is configured yet: f3 opens the providers.", severity="warning")
            return ""
        dialog = workbench.shown
        picked = await app.push_screen_wait(
            ModelPickerScreen(center, dialog.provider_id, dialog.model_id, required=dialog.capability_requirement)
        )
        if picked is None:
            return ""
        if picked == COMPARE:
            return "compare"
        provider_id, model_id = picked
        workbench.set_model(dialog, provider_id, model_id)
        app.notify(f"This dialog now uses {model_id} ({provider_id}).", markup=False)
        return ""

    async def manage_providers(self, app: App[Any], center: Center) -> None:
        from visindigo.tui.setup.providers import ProvidersScreen

        await app.push_screen_wait(ProvidersScreen(center, center.paths))

    async def manage_mcp_servers(self, app: App[Any], center: Center) -> None:
        from visindigo.tui.mcp.servers import MCPServersScreen

        self.install_tool_source()  # servers added here must have a manager to run them
        await app.push_screen_wait(MCPServersScreen(center))

    async def manage_skills(self, app: App[Any], center: Center, dialog: Dialog) -> None:
        from visindigo.tui.setup.skills import SkillsScreen

        # A dialog not sent yet keeps its skills and is saved with them by its first message.
        await app.push_screen_wait(SkillsScreen(center, dialog))

    async def manage_package_tools(self, app: App[Any], center: Center, dialog: Dialog) -> None:
        from visindigo.tui.setup.package_tools import PackageToolsScreen

        await app.push_screen_wait(PackageToolsScreen(center, dialog))

    async def choose_template(self, app: App[Any], dialog: Dialog) -> tuple[list[Message], bool] | None:
        from visindigo.tui.templates.library import TemplateLibraryScreen

        library, words = self.templates.library(), self.templates.files_word()
        result = await app.push_screen_wait(TemplateLibraryScreen(library, dialog, files_word=words))
        if result is None:
            return None
        return list(result.messages or (result.message,)), bool(result.send)

    async def edit_parameters(self, app: App[Any], dialog: Dialog) -> bool:
        from visindigo.engine.providers.capabilities import forced_choice_note
        from visindigo.tui.setup.parameters import ParametersScreen

        tools = [function.id for function in dialog.effective_functions()]
        center = dialog.center
        provider = None
        if center is not None:
            provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
        note = forced_choice_note(provider) if tools else ""
        screen = ParametersScreen(dialog.parameters, tools, title=dialog.title, tool_choice_note=note)
        chosen = await app.push_screen_wait(screen)
        if chosen is None:
            return False
        dialog.parameters = chosen  # stored with the dialog (a dialog not sent yet keeps them for its first run)
        return True

    async def compare(self, screen: Workspace) -> None:
        from visindigo.tui.compare import flow as compare_flow

        await compare_flow.compare_from_main(screen)

    def in_comparison(self, app: App[Any], dialog_id: str) -> bool:
        from visindigo.tui.compare.flow import in_comparison

        return in_comparison(app, dialog_id)

    async def show_diff(
        self, app: App[Any], dialog: Dialog, alternatives: Mapping[int, Sequence[Dialog]], cursor_index: int | None
    ) -> None:
        from visindigo.tui.compare import views

        await views.show_diff(app, dialog, alternatives, cursor_index)

    async def choose_divergence(self, app: App[Any], center: Center, dialog: Dialog) -> tuple[str, int] | None:
        from visindigo.tui.compare import views

        target = await views.choose_divergence(app, center, dialog)
        return None if target is None else (target.dialog_id, target.message_index)

    async def show_scores(self, app: App[Any], center: Center) -> None:
        from visindigo.tui.compare import views

        await views.show_scores(app, center)

    def pick_resource(
        self, app: App[Any], servers: list[MCPServer], picked: Callable[[PickedResource | None], None]
    ) -> None:
        from visindigo.engine.mcp import MCPManager
        from visindigo.tui.mcp.resource_picker import ResourcePickerScreen

        manager = self.center.tool_source
        if not isinstance(manager, MCPManager):  # `install_tool_source` made it just before, unless one was given
            app.notify("MCP support is not running in this session.", severity="warning")
            return
        app.push_screen(ResourcePickerScreen(manager, servers), callback=picked)

    def help_sections(self) -> list[HelpSection]:
        from visindigo.tui.common.help import bindings_of
        from visindigo.tui.compare.screen import CompareScreen

        return [("Comparing models (alt+c)", bindings_of(CompareScreen))]

