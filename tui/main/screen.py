"""The main screen: dialog tree, message pane, reasoning drawer, composer and status line.

The screen composes: it lays the widgets out, holds the screen-wide keys and routes the widgets' messages. The
user's working state (the shown dialog, the runs, branches, the tree index) is the `Workbench`'s; each widget
owns its own state and keys and follows the workbench's news by itself. The screen is the workbench's run host
(runs go on in its workers) and sequences what spans widgets: opening a dialog shows it in the pane, then
points the drawer at it; a branch is shown before its run starts.

Nothing here talks to the network or the database directly: dialogs, search and persistence go through the
engine's `Center`, via the workbench.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer
from textual.worker import Worker

from visindigo.engine import Center, Dialog, Message
from visindigo.tui.chat.composer import Composer, ComposerInput
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.chat.reasoning_drawer import ReasoningDrawer
from visindigo.tui.chat.status_line import StatusLine
from visindigo.tui.common.approval import approve
from visindigo.tui.common.copy_actions import copy_last_answer, save_last_copy
from visindigo.tui.common.messages import DialogsChanged, WorkbenchNews, listen
from visindigo.tui.main import modals
from visindigo.tui.main.context import ContextActions
from visindigo.tui.main.dialog_tree import DialogTree, Sidebar
from visindigo.tui.main.keys import BINDINGS, PALETTE, PaletteCommand, palette_commands
from visindigo.tui.main.launchers import ModalLaunchers
from visindigo.tui.main.modals import tell_refusals
from visindigo.tui.main.panels import Panels
from visindigo.tui.main.resources import ResourceAttaching
from visindigo.tui.workbench import Refused, Runs, Workbench
from visindigo.tui.workbench import events as news

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from visindigo.engine.approval import Approval, ToolCallRequest


class MainScreen(ModalLaunchers, Screen[None]):
    """Where the user works. Every key below is also a command-palette entry (ctrl+p) and on the help (f1)."""

    BINDINGS: ClassVar[list[BindingType]] = BINDINGS
    PALETTE: ClassVar[list[tuple[str, str, str]]] = PALETTE

    HORIZONTAL_BREAKPOINTS = [
        (0, "-narrow"),
        (100, "-medium"),
        (120, "-wide"),
    ]

    def __init__(
        self,
        center: Center,
        *,
        stream_fps: float = 4.0,
        dialog: Dialog | None = None,
        services: modals.AppServices | None = None,
    ) -> None:
        super().__init__()
        self.workbench = Workbench(center, dialog=dialog, host=self)
        self.services = services
        self.stream_fps = max(0.5, min(60.0, stream_fps))
        self.sidebar = Sidebar(self.workbench, id="sidebar")
        self.pane = MessagePane(self.workbench, fps=self.stream_fps, id="messages")
        self.pane.context_keys = True  # p pins, i shows an answer's figures, l a summary's ledger
        self.drawer = ReasoningDrawer(id="drawer")
        self.composer = Composer(id="composer")
        self.status_line = StatusLine(self.workbench, id="status")
        self.resources = ResourceAttaching(self, self.workbench, self.composer)
        self.panels = Panels(self, self.sidebar, self.drawer)
        self.context = ContextActions(self)
        self._unsubscribe = lambda: None

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
    def pending_resources(self) -> dict[str, list[Any]]:
        """MCP resources waiting to go with each dialog's next message (the workbench's)."""
        return self.workbench.pending_resources

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            yield self.sidebar
            with Vertical(id="center"):
                yield self.pane
                yield self.composer
            yield self.drawer
        yield self.status_line
        yield Footer(compact=True, show_command_palette=True)

    async def on_mount(self) -> None:
        self._unsubscribe = listen(self, self.workbench, news.RunStarted, news.RunEnded)
        await self.open_dialog(self.dialog)
        self.composer.input.focus()
        self.call_after_refresh(self._fill_sidebar)  # hundreds of dialogs: after the first frame
        if self.services is not None:
            await self.services.main_screen_ready(self)

    def on_unmount(self) -> None:
        self._unsubscribe()

    def on_screen_resume(self) -> None:
        """Back from a modal (providers, MCP servers, the model picker): the status line may say something new."""
        self.status_line.refresh_now()

    async def _fill_sidebar(self) -> None:
        self.workbench.refresh_tree()
        await self.sidebar.populate()  # draws the tree now, as the first thing after the first frame

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
        return await approve(self.app, request)

    def _in_worker(self, flow: Coroutine[Any, Any, None], group: str = "modal") -> Worker[None]:
        """Run a flow that waits for a modal (push_screen_wait needs a worker); failures are reported."""
        return self.run_worker(flow, group=group, exclusive=True, exit_on_error=False)

    # --- showing dialogs -------------------------------------------------------------------------------------

    async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None:
        """Show `dialog` in the pane (its run goes on if it has one) and point the drawer at it."""
        await self.pane.show(dialog, focus_index=focus_index)
        self._now_showing(dialog)
        run = self.runs.get(dialog.id)
        if run is not None and run.streaming:
            self.drawer.follow_run(run)
        if focus_index is None or self.pane.cursor is None:
            self.drawer.show_latest(dialog)

    def _now_showing(self, dialog: Dialog) -> None:
        if self.composer.editing_index is not None:
            self.composer.stop_edit()
        self.workbench.show(dialog)
        self.status_line.refresh_now()
        self.context.learn_window(dialog)

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

    # --- what the widgets report ------------------------------------------------------------------------------

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        event = message.event
        self.refresh_bindings()  # "esc Cancel" in the footer while the shown dialog runs
        if isinstance(event, news.RunEnded) and event.outcome == "failed" and event.dialog_id == self.dialog.id:
            run = self.runs.get(event.dialog_id)
            if run is not None and run.context_exceeded:
                self.context.after_refusal(self.dialog, event.error)
        if isinstance(event, news.RunEnded) and event.outcome == "failed" and event.dialog_id != self.dialog.id:
            from visindigo.tui.compare.flow import (
                in_comparison,  # not at the top: the comparison screens load when first used
            )

            if not in_comparison(self.app, event.dialog_id):  # a column shows its own failure
                self.notify(f"A run in another dialog failed: {event.error}", severity="error", markup=False)

    @on(MessagePane.CursorMoved)
    @on(MessagePane.StreamReport)
    def _pane_reported(self, event: MessagePane.StreamReport | MessagePane.CursorMoved) -> None:
        if event.pane is self.pane:
            self.drawer.follow_pane(self.pane, event)
            if isinstance(event, MessagePane.Frame):
                self.status_line.refresh_now()

    @on(MessagePane.DialogSwitched)
    def _switched(self, event: MessagePane.DialogSwitched) -> None:
        if event.pane is self.pane:
            self._now_showing(event.dialog)

    @on(MessagePane.ContextRequested)
    def _context_requested(self, event: MessagePane.ContextRequested) -> None:
        if event.pane is self.pane:
            {"pin": self.context.pin, "details": self.context.details, "ledger": self.context.ledger}[event.what](
                event.index
            )

    @on(MessagePane.EditRequested)
    def _edit_requested(self, event: MessagePane.EditRequested) -> None:
        self.start_edit(event.index)

    @on(MessagePane.RegenerateRequested)
    async def _regenerate_requested(self, event: MessagePane.RegenerateRequested) -> None:
        await self.regenerate(event.index)

    @on(ComposerInput.Submitted)
    async def _submitted(self, event: ComposerInput.Submitted) -> None:
        event.stop()
        text = event.text
        if not text.strip():
            return
        if self.composer.editing_index is not None:
            index = self.composer.editing_index
            self.composer.stop_edit(restore_draft=True)
            await self.edit_message(index, text)
            return
        if self.composer.template is None:
            await self.send(text)
        else:  # "edit first" from the template form: still the template's message
            self._send_edited_template(self.composer.template, text)

    @tell_refusals
    def _send_edited_template(self, template: Message, text: str) -> None:
        self.workbench.refuse_while_running(self.dialog)
        self.composer.stop_edit(restore_draft=True)
        self.workbench.send_edited_template(template, text)

    @on(ComposerInput.RecallRequested)
    def _recall(self, event: ComposerInput.RecallRequested) -> None:
        event.stop()
        self.action_edit_last()

    @on(DialogTree.OpenDialog)
    async def _tree_open(self, event: DialogTree.OpenDialog) -> None:
        focus = event.message_index if event.message_index >= 0 else None
        await self.open_dialog_id(event.dialog_id, focus_index=focus)
        if self.panels.close_sidebar_overlay():
            self.composer.input.focus()

    @on(DialogTree.DeleteRequested)
    def _tree_delete(self, event: DialogTree.DeleteRequested) -> None:
        self.delete_dialog(event.dialog_id)

    def on_dialogs_changed(self, event: DialogsChanged) -> None:
        self.refresh_tree(event.select_id)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self._in_worker(modals.confirm_link(self.app, event.href), group="link")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        modals.report_failure(self, event)

    def on_composer_input_resource_requested(self, event: Any) -> None:
        """`@` typed where a word starts: open the picker if this dialog has servers, else it is just an `@`."""
        if self.resources.servers():
            self.action_attach_resource()

    # --- sending, branching, cancelling -----------------------------------------------------------------------

    @tell_refusals
    async def send(self, text: str | Message) -> None:
        """Send the user's message (text, or a message such as a filled template) in the shown dialog; a question
        that will not fit the model's window waits for the user's choice (`main.context`)."""
        if isinstance(text, str) and not self.context.may_send(text):
            return
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
        async def flow(self: MainScreen) -> None:
            target = await modals.confirm_delete(self.app, self.workbench, dialog_id)
            if target is not None:
                await self.open_dialog(target)
                self.refresh_tree()

        return self._in_worker(flow(self), group="delete")

    # --- screen-wide keys --------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":  # esc cancels (and the footer offers it) only while the shown dialog runs
            run = self.runs.get(self.dialog.id)
            return run is not None and run.running and not run.cancelling and not self.panels.over_messages()
        return True

    async def action_cancel(self) -> None:
        self.cancel_run(self.dialog.id)  # the status line says "cancelling…" until the run has ended
        self.refresh_bindings()

    async def action_escape(self) -> None:
        if self.panels.over_messages():
            self.panels.close_overlays()
            self.composer.input.focus()
            return
        if self.cancel_run(self.dialog.id):
            self.refresh_bindings()
            return
        if self.composer.busy:
            self.composer.stop_edit()
            return
        if self.focused is self.sidebar.search_input or self.sidebar.query_text:
            self.sidebar.clear_search()
        self.composer.input.focus()

    async def action_new_dialog(self) -> None:
        fresh = self.workbench.new_dialog()
        if fresh is not None:
            await self.open_dialog(fresh)
            self.refresh_tree()
        self.composer.input.focus()

    async def action_regenerate(self) -> None:
        cursor = self.pane.cursor
        await self.regenerate(cursor.index if cursor is not None and self.focused is self.pane else None)

    @tell_refusals
    def action_edit_last(self) -> None:
        cursor = self.pane.cursor
        self.start_edit(self.workbench.editable_index(cursor.index if cursor is not None else None))

    def action_attach_resource(self) -> None:
        self.resources.open_picker(self._services().install_tool_source)

    def action_compact(self) -> None:
        self.context.compact()

    def action_move_out(self) -> None:
        self.context.compact(moved=True)

    def action_delete_dialog(self) -> None:
        self.delete_dialog(self.dialog.id)

    def action_copy_last(self) -> None:
        copy_last_answer(self, self.workbench)

    def action_save_last_copy(self) -> None:
        save_last_copy(self, self.workbench)

    async def _tree_jump(self, target: str | None, missing: str) -> None:
        if target is None:
            self.notify(missing)
            return
        await self.open_dialog_id(target)

    async def action_tree_parent(self) -> None:
        await self._tree_jump(self.workbench.parent_of(self.dialog.id), "This dialog is not a branch of another.")

    async def action_tree_child(self) -> None:
        await self._tree_jump(self.workbench.first_branch_of(self.dialog.id), "This dialog has no branches.")

    async def action_tree_sibling(self, step: int) -> None:
        await self._tree_jump(self.workbench.sibling_of(self.dialog.id, step), "No more dialogs on this level.")

    def action_search(self) -> None:
        self.panels.search()

    def action_toggle_sidebar(self) -> None:
        self.panels.toggle_sidebar()

    def action_toggle_drawer(self) -> None:
        self.panels.toggle("drawer")

    async def action_reasoning_all(self) -> None:
        """Unfold a long reasoning in the drawer (opened first when hidden), or fold it again."""
        if not self.drawer.display:
            self.panels.toggle("drawer")
        if not await self.drawer.toggle_fold():
            self.notify("The reasoning in the drawer is not folded (it is short, or still arriving).")

    def action_focus_tree(self) -> None:
        self.panels.focus_tree()

    def action_focus_composer(self) -> None:
        """At once, not after the next message as `focus()` does: a paste read from the terminal together with
        ctrl+l is forwarded to whatever is focused when the app takes it, right after the key."""
        self.set_focus(self.composer.input)

    def action_focus_messages(self) -> None:
        self.pane.focus()

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of the screen (and of the message under the cursor), for the command palette."""
        return palette_commands(self.BINDINGS, self.run_action, self.pane)
