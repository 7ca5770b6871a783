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
    from textual.notifications import SeverityLevel
    from textual.widget import Widget
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

    @property
    def focused(self) -> Widget | None: ...

    def _in_worker(self, flow: Coroutine[Any, Any, None], group: str = "modal") -> Worker[None]: ...
    def refresh_tree(self, select_id: str = "") -> None: ...
    def notify(self, message: str, *, severity: SeverityLevel = "information", markup: bool = True) -> None: ...
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

    # --- the timeline, forks and labels (tui/main/timeline.py, rules in workbench/timeline.py) ----------------

    def _message_here(self: MainScreen) -> int | None:
        """The message under the cursor when the messages have focus, else the last one (None: no message)."""
        cursor = self.pane.cursor
        if cursor is not None and self.focused is self.pane:
            return int(cursor.index)
        return self.dialog.message_count - 1 if self.dialog.message_count else None

    def action_timeline(self: MainScreen) -> None:
        from visindigo.tui.main.timeline import TimelineScreen
        from visindigo.tui.workbench.timeline import timeline

        async def flow() -> None:
            entries = timeline(self.workbench.family(self.dialog), self.workbench.tree_index.ordinals())
            cursor = self.pane.cursor
            here = (self.dialog.id, int(cursor.index)) if cursor is not None else None
            target = await self.app.push_screen_wait(TimelineScreen(entries, current=here))
            if target is not None:
                await self.open_dialog_id(target[0], focus_index=target[1])
                self.pane.focus()

        self._in_worker(flow())

    def action_fork_here(self: MainScreen) -> None:
        from visindigo.tui.main.timeline import message_kind
        from visindigo.tui.workbench.timeline import fork_at

        index = ModalLaunchers._message_here(self)
        dialog = self.dialog
        if index is None or not self.workbench.is_registered(dialog):
            self.notify("Nothing to fork yet: send a message first.", severity="warning")
            return
        if self.workbench.runs.is_running(dialog.id):
            self.notify("Wait for the answer to finish (or esc to cancel it) before forking.", severity="warning")
            return
        message = dialog.message_at(index)
        kind = message_kind(message.role, bool(message.tool_calls))

        async def flow() -> None:
            branch = fork_at(self.center, dialog, index)
            self.refresh_tree(branch.id)
            await self.open_dialog_id(branch.id, focus_index=index)
            self.notify(f"A new branch ending at message {index + 1} ({kind}): what you send goes on from there.")

        self._in_worker(flow())

    def action_tail_fork(self: MainScreen) -> None:
        from visindigo.tui.main.timeline import AskLineScreen, turns_problem
        from visindigo.tui.workbench.timeline import tail_fork, turn_starts

        dialog = self.dialog
        turns = len(turn_starts(dialog.messages))
        if not turns:
            self.notify("Nothing to fork yet: send a message first.", severity="warning")
            return

        async def flow() -> None:
            asked = await self.app.push_screen_wait(
                AskLineScreen(
                    "Tail fork: a new dialog from the last turns",
                    value=str(min(2, turns)),
                    placeholder="how many turns",
                    hint=f"This dialog has {turns} turn{'s' if turns != 1 else ''} (a question and its answer). "
                    "The new dialog keeps the system messages and says where it came from.",
                    check=turns_problem(turns),
                    max_length=6,
                )
            )
            if asked is None:
                return
            fresh = tail_fork(self.center, dialog, int(asked))
            self.refresh_tree(fresh.id)
            await self.open_dialog_id(fresh.id)
            self.notify(
                f"A new dialog from the last {asked} turn(s) of “{dialog.title or 'this dialog'}”.", markup=False
            )

        self._in_worker(flow())

    def action_label(self: MainScreen) -> None:
        from visindigo.tui.main.timeline import AskLineScreen
        from visindigo.tui.workbench.timeline import LABEL_LIMIT, label_of, set_label

        index = ModalLaunchers._message_here(self)
        dialog = self.dialog
        if index is None or not self.workbench.is_registered(dialog):
            self.notify("Nothing to label yet: send a message first.", severity="warning")
            return

        async def flow() -> None:
            current = label_of(dialog.message_at(index))
            asked = await self.app.push_screen_wait(
                AskLineScreen(
                    f"Label message {index + 1}",
                    value=current,
                    placeholder="a short label (empty: none)",
                    hint="Shown in the timeline (alt+l) and the dialog tree; the timeline's filter finds it.",
                    max_length=LABEL_LIMIT,
                )
            )
            if asked is None or index >= dialog.message_count:
                return
            kept = set_label(dialog, index, asked)
            self.refresh_tree(dialog.id)
            self.notify(
                f"Message {index + 1} labelled “{kept}”." if kept else f"Message {index + 1}: label removed.",
                markup=False,
            )

        self._in_worker(flow())
