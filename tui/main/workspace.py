"""What the main screen is made of and does with a dialog: its widgets, the workbench's run host, showing a
dialog, and sending, branching and cancelling.

`MainScreen` (main.screen) adds the screen-wide keys, the routing of its widgets' messages and the keys that
open other screens. The two are one screen split in two modules, a base that makes and owns every member it
uses and the screen built on it, so that each module keeps to one job (and under the size every module keeps
to).
"""

from __future__ import annotations

import os
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker

from visindigo.engine import Center, Dialog, Message
from visindigo.tui.chat.composer import Composer
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.chat.reasoning_drawer import ReasoningDrawer
from visindigo.tui.chat.status_line import StatusLine
from visindigo.tui.chat.vim import configured_keys
from visindigo.tui.main import modals
from visindigo.tui.main.modals import tell_refusals
from visindigo.tui.main.panels import Panels
from visindigo.tui.main.resources import FileAttaching, ResourceAttaching
from visindigo.tui.main.sidebar import Sidebar
from visindigo.tui.workbench import Refused, Runs, Workbench
from visindigo.tui.workbench.attachments import Pending

if TYPE_CHECKING:
    from visindigo.engine.approval import Approval, ToolCallRequest


class Workspace(Screen[None]):
    """The dialog tree, the message pane, the reasoning drawer, the composer and the status line, over one
    `Workbench` whose runs go on in this screen's workers."""

    def __init__(self, center: Center, *, stream_fps: float = 4.0, dialog: Dialog | None = None) -> None:
        super().__init__()
        self.workbench = Workbench(center, dialog=dialog, host=self)
        self.stream_fps = max(0.5, min(60.0, stream_fps))
        self.sidebar = Sidebar(self.workbench, id="sidebar")
        self.pane = MessagePane(self.workbench, fps=self.stream_fps, id="messages")
        self.drawer = ReasoningDrawer(id="drawer")
        self.composer = Composer(id="composer", keys=configured_keys(center))
        self.status_line = StatusLine(self.workbench, id="status", classes="-footer-row")
        self.files = FileAttaching(self, self.workbench, self.composer, os.getcwd())
        self.resources = ResourceAttaching(self, self.workbench, self.composer, self.files)
        self.panels = Panels(self, self.sidebar, self.drawer)

    @property
    def center(self) -> Center:
        return self.workbench.center

    @property
    def dialog(self) -> Dialog:
        """The dialog on screen (its runs, and those of other dialogs, go on in workers)."""
        return self.workbench.shown

    @property
    def runs(self) -> Runs:
        return self.workbench.runs

    @property
    def pending_resources(self) -> Pending:
        """MCP resources waiting to go with each dialog's next message (the workbench's)."""
        return self.workbench.pending_resources

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield self.sidebar
            with Vertical(id="center"):
                yield self.pane
                yield self.composer
            yield self.drawer
        yield self.status_line  # two rows high until the footer is mounted: the second is the footer's, empty

    async def mount_footer(self) -> None:
        """The key footer, in the row kept for it. It shows no key in the first frame (its keys come with a later
        refresh), so it is mounted after that frame: its module and its CSS are not on the way there. Until then
        the status line draws that row, empty in the footer's colour (one widget fewer in the first frame)."""
        from textual.widgets import Footer

        with self.app.batch_update():
            self.status_line.remove_class("-footer-row")
            await self.mount(Footer(compact=True, show_command_palette=True))

    def refresh_tree(self, select_id: str = "") -> None:
        """Rebuild the tree index from the Center (the sidebar redraws itself)."""
        self.workbench.refresh_tree(select_id)

    # --- the workbench's run host --------------------------------------------------------------------------

    def start(self, run: Coroutine[Any, Any, None], *, name: str, group: str) -> None:
        self.run_worker(run, name=name, group=group, exclusive=True, exit_on_error=False,
                        description="generating an answer")  # fmt: skip

    def cancel(self, group: str) -> None:
        self.workers.cancel_group(self, group)

    async def approve(self, request: ToolCallRequest) -> Approval:
        from visindigo.tui.common.approval import approve  # (its modal: only a tool call asks)

        return await approve(self.app, request)

    def in_worker(self, flow: Coroutine[Any, Any, None], group: str = "modal") -> Worker[None]:
        """Run a flow that waits for a modal (push_screen_wait needs a worker); failures are reported."""
        return self.run_worker(flow, group=group, exclusive=True, exit_on_error=False)

    # --- showing dialogs -------------------------------------------------------------------------------------

    async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None:
        """Show `dialog` in the pane (its run goes on if it has one) and point the drawer at it."""
        await self.pane.show(dialog, focus_index=focus_index)
        self.now_showing(dialog)
        run = self.runs.get(dialog.id)
        if run is not None and run.streaming:
            self.drawer.follow_run(run)
        if focus_index is None or self.pane.cursor is None:
            self.drawer.show_latest(dialog)

    def now_showing(self, dialog: Dialog) -> None:
        """The pane shows `dialog` now: the workbench and the status line follow."""
        if self.composer.editing_index is not None:
            self.composer.stop_edit()
        self.workbench.show(dialog)
        self.status_line.refresh_now()

    async def open_dialog_id(self, dialog_id: str, *, focus_index: int | None = None) -> None:
        try:
            dialog = self.workbench.find(dialog_id)
        except Refused as refused:  # the store is being repaired
            self.notify(str(refused), severity="warning", markup=False)
            return
        if dialog is None:
            self.notify("That dialog no longer exists.", severity="warning")
            self.refresh_tree()
            return
        await self.open_dialog(dialog, focus_index=focus_index)

    # --- sending, branching, cancelling -----------------------------------------------------------------------

    @tell_refusals
    async def send(self, text: str | Message) -> None:
        """Send the user's message (text, or a message such as a filled template) in the shown dialog."""
        self.workbench.send(text)
        if isinstance(text, str):
            self.composer.clear()

    async def _open_and_run(self, branch: Dialog) -> None:
        await self.open_dialog(branch)
        self.pane.follow()
        self.workbench.start_run(branch)

    @tell_refusals
    async def regenerate(self, index: int | None = None) -> None:
        """A new branch with another answer (or the same dialog again when it has no answer yet)."""
        if (branch := self.workbench.regenerate(index)) is not None:
            await self._open_and_run(branch)

    def start_edit(self, index: int) -> None:
        self.composer.start_edit(index, self.dialog.message_at(index).content)

    @tell_refusals
    async def edit_message(self, index: int, text: str) -> None:
        """Branch before message `index` with `text` in its place, open the branch and run it."""
        await self._open_and_run(self.workbench.edit(index, text))

    @tell_refusals
    def send_edited_template(self, template: Message, text: str) -> None:
        self.workbench.refuse_while_running(self.dialog)
        self.composer.stop_edit(restore_draft=True)
        self.workbench.send_edited_template(template, text)

    def cancel_run(self, dialog_id: str) -> bool:
        """Cancel the dialog's run (the status line says "cancelling…" until it has ended)."""
        cancelled = self.workbench.cancel_run(dialog_id)
        if cancelled and dialog_id == self.dialog.id:
            self.status_line.refresh_now()
        return cancelled

    @tell_refusals
    async def insert_template(self, messages: list[Message], send: bool) -> None:
        """Add a filled template to the dialog and run it, or (edit first) put its text in the composer, from
        where Enter sends the edited text as the same template message (named after the template)."""
        last = self.workbench.add_template(messages, send=send)
        if not send:
            self.composer.start_template(last)

    def delete_dialog(self, dialog_id: str) -> Worker[None]:
        @tell_refusals
        async def flow(self: Workspace) -> None:
            target = await modals.confirm_delete(self.app, self.workbench, dialog_id)
            if target is not None:
                await self.open_dialog(target)
                self.refresh_tree()

        return self.in_worker(flow(self), group="delete")
