"""The main screen's keys that open a modal screen or another screen: each starts one flow in a worker.

Kept apart from `main.py`, which composes the screen and routes its widgets' messages: these launchers only
gather what a flow needs from the screen (the app, the workbench, the shown dialog) and hand it to the flows
in `main_modals`, `compare_flow` and `compare_views`. A mixin, so that the actions stay the screen's own for
Textual's bindings, the command palette and the help.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from visindigo.tui.compare import views
from visindigo.tui.main import modals

# `compare_flow` (the comparison screen, its columns and `engine.compare`: ~20 ms to import) is imported by the
# actions that start a comparison, not with the main screen.

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from visindigo.engine import Center, Dialog, Message
    from visindigo.tui.chat.message_pane import MessagePane
    from visindigo.tui.chat.status_line import StatusLine
    from visindigo.tui.workbench import Workbench


class MainScreen(Protocol):
    """What the launchers use of the main screen (named here, so this module does not import main.py)."""

    @property
    def app(self) -> App[Any]: ...
    @property
    def center(self) -> Center: ...
    @property
    def dialog(self) -> Dialog: ...

    workbench: Workbench
    services: modals.AppServices | None
    pane: MessagePane
    status_line: StatusLine

    def _in_worker(self, flow: Coroutine[Any, Any, None], group: str = "modal") -> Worker[None]: ...
    def _services(self) -> modals.AppServices: ...
    async def insert_template(self, messages: list[Message], send: bool) -> None: ...
    async def open_dialog_id(self, dialog_id: str, *, focus_index: int | None = None) -> None: ...


class ModalLaunchers:
    """The `action_*` methods of MainScreen that open another screen."""

    def _services(self: MainScreen) -> modals.AppServices:
        if self.services is None:
            raise RuntimeError("this screen was made without the app's services")
        return self.services

    def action_pick_model(self: MainScreen) -> None:
        async def flow() -> None:
            if await modals.pick_model(self.app, self.workbench) == "compare":
                from visindigo.tui.compare import flow as compare_flow

                await compare_flow.run_from_main(self)

        self._in_worker(flow())

    def action_compare(self: MainScreen) -> None:
        from visindigo.tui.compare import flow as compare_flow

        self._in_worker(compare_flow.run_from_main(self), group="compare")

    def action_providers(self: MainScreen) -> None:
        self._in_worker(modals.manage_providers(self.app, self.center))

    def action_mcp_servers(self: MainScreen) -> None:
        self._in_worker(modals.manage_mcp_servers(self.app, self._services(), self.center))

    def action_skills(self: MainScreen) -> None:
        self._in_worker(modals.manage_skills(self.app, self.center, self.dialog))

    def action_package_tools(self: MainScreen) -> None:
        self._in_worker(modals.manage_package_tools(self.app, self.center, self.dialog))

    def action_templates(self: MainScreen) -> None:
        async def flow() -> None:
            chosen = await modals.choose_template(self.app, self._services(), self.dialog)
            if chosen is not None:
                await self.insert_template(*chosen)

        self._in_worker(flow())

    def action_parameters(self: MainScreen) -> None:
        async def flow() -> None:
            if await modals.edit_parameters(self.app, self.dialog):
                self.status_line.refresh_now()

        self._in_worker(flow())

    def action_rename(self: MainScreen) -> None:
        self._in_worker(modals.rename(self.app, self.workbench))

    # --- looking back at comparisons and branches (tui/screens/compare_views.py) ------------------------------

    def action_diff_alternatives(self: MainScreen) -> None:
        index = self.pane.cursor.index if self.pane.cursor is not None else None
        self._in_worker(views.show_diff(self.app, self.dialog, self.workbench.alternatives(self.dialog), index))

    def action_divergences(self: MainScreen) -> None:
        async def flow() -> None:
            target = await views.choose_divergence(self.app, self.center, self.dialog)
            if target is not None:
                await self.open_dialog_id(target.dialog_id, focus_index=target.message_index)
                self.pane.focus()

        self._in_worker(flow())

    def action_scores(self: MainScreen) -> None:
        self._in_worker(views.show_scores(self.app, self.center))
