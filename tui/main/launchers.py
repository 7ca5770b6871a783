"""The main screen's keys that open another screen, and what the main screen needs from the app to open them.

The screens themselves belong to the feature packages (setup, MCP, templates, compare), which `tui/main` does
not import: it names what it needs of them as `FeatureScreens`, and the app hands it one (`tui/features.py`)
with its `AppServices`. `Launchers` gathers what a flow needs from the screen (the app, the workbench, the
shown dialog) and starts the flow in one of the screen's workers; the screen's `action_*` methods call it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.app import App

    from visindigo.engine import Center, Dialog, Message
    from visindigo.engine.mcp_server import MCPServer
    from visindigo.tui.common.help import HelpSection
    from visindigo.tui.main.resources import PickedResource
    from visindigo.tui.main.workspace import Workspace
    from visindigo.tui.workbench import Workbench


class FeatureScreens(Protocol):
    """The feature packages' screens the main screen opens, each as the flow that waits for its answer."""

    async def pick_model(self, app: App[Any], workbench: Workbench) -> str:
        """Choose the shown dialog's model; "compare" when the user asked to compare several instead."""
        ...

    async def manage_providers(self, app: App[Any], center: Center) -> None: ...
    async def manage_mcp_servers(self, app: App[Any], center: Center) -> None: ...
    async def manage_skills(self, app: App[Any], center: Center, dialog: Dialog) -> None: ...
    async def manage_package_tools(self, app: App[Any], center: Center, dialog: Dialog) -> None: ...

    async def choose_template(self, app: App[Any], dialog: Dialog) -> tuple[list[Message], bool] | None:
        """The filled template's messages and whether to send them at once (None: the user gave up)."""
        ...

    async def edit_parameters(self, app: App[Any], dialog: Dialog) -> bool:
        """The dialog's generation parameters in a form; True when the user changed them."""
        ...

    async def compare(self, screen: Workspace) -> None:
        """Compare models on the shown dialog (the picker, then the comparison screen over `screen`)."""
        ...

    def in_comparison(self, app: App[Any], dialog_id: str) -> bool:
        """Whether an open comparison screen shows this dialog (and so its failure) itself."""
        ...

    async def show_diff(
        self, app: App[Any], dialog: Dialog, alternatives: Mapping[int, Sequence[Dialog]], cursor_index: int | None
    ) -> None: ...

    async def choose_divergence(self, app: App[Any], center: Center, dialog: Dialog) -> tuple[str, int] | None:
        """Where to go from the divergence list: (dialog id, message index), or None."""
        ...

    async def show_scores(self, app: App[Any], center: Center) -> None: ...

    def pick_resource(
        self, app: App[Any], servers: list[MCPServer], picked: Callable[[PickedResource | None], None]
    ) -> None:
        """Open the resource picker on `servers`; `picked` gets the choice (None: given up)."""
        ...

    def help_sections(self) -> list[HelpSection]:
        """The feature screens' keys, for the key list (f1)."""
        ...


class AppServices(Protocol):
    """What the main screen needs from the application beyond Textual's `App` (the app passes itself; typed
    here so that no screen imports the app)."""

    async def main_screen_ready(self, screen: Any) -> None:
        """The main screen is mounted and shows its first dialog (seed the demo, offer first-run setup)."""
        ...

    def install_tool_source(self) -> None: ...

    @property
    def feature_screens(self) -> FeatureScreens: ...


class Launchers:
    """What the main screen's keys for other screens do: each starts one flow in a worker of `screen`."""

    def __init__(self, screen: Workspace, services: AppServices | None) -> None:
        self.screen = screen
        self.services = services

    @property
    def features(self) -> FeatureScreens:
        if self.services is None:
            raise RuntimeError("this screen was made without the app's services")
        return self.services.feature_screens

    def pick_model(self) -> None:
        screen = self.screen

        async def flow() -> None:
            if await self.features.pick_model(screen.app, screen.workbench) == "compare":
                await self.features.compare(screen)

        screen.in_worker(flow())

    def compare(self) -> None:
        self.screen.in_worker(self.features.compare(self.screen), group="compare")

    def providers(self) -> None:
        self.screen.in_worker(self.features.manage_providers(self.screen.app, self.screen.center))

    def mcp_servers(self) -> None:
        self.screen.in_worker(self.features.manage_mcp_servers(self.screen.app, self.screen.center))

    def skills(self) -> None:
        screen = self.screen
        screen.in_worker(self.features.manage_skills(screen.app, screen.center, screen.dialog))

    def package_tools(self) -> None:
        screen = self.screen
        screen.in_worker(self.features.manage_package_tools(screen.app, screen.center, screen.dialog))

    def templates(self) -> None:
        screen = self.screen

        async def flow() -> None:
            chosen = await self.features.choose_template(screen.app, screen.dialog)
            if chosen is not None:
                await screen.insert_template(*chosen)

        screen.in_worker(flow())

    def parameters(self) -> None:
        screen = self.screen

        async def flow() -> None:
            if await self.features.edit_parameters(screen.app, screen.dialog):
                screen.status_line.refresh_now()

        screen.in_worker(flow())

    def attach_resource(self) -> None:
        """`@` or the key: the resource picker on the shown dialog's servers (their manager made first)."""
        if self.services is None:
            raise RuntimeError("this screen was made without the app's services")
        self.screen.resources.open_picker(self.services.install_tool_source, self.features.pick_resource)

    # --- looking back at comparisons and branches -------------------------------------------------------------

    def diff_alternatives(self) -> None:
        screen = self.screen
        index = screen.pane.cursor.index if screen.pane.cursor is not None else None
        alternatives = screen.workbench.alternatives(screen.dialog)
        screen.in_worker(self.features.show_diff(screen.app, screen.dialog, alternatives, index))

    def divergences(self) -> None:
        screen = self.screen

        async def flow() -> None:
            target = await self.features.choose_divergence(screen.app, screen.center, screen.dialog)
            if target is not None:
                dialog_id, message_index = target
                await screen.open_dialog_id(dialog_id, focus_index=message_index)
                screen.pane.focus()

        screen.in_worker(flow())

    def scores(self) -> None:
        self.screen.in_worker(self.features.show_scores(self.screen.app, self.screen.center))
