"""The main screen: dialog tree, message pane, reasoning drawer, composer and status line.

The screen (on its `Workspace`, which makes the widgets and shows, sends and branches) holds the screen-wide
keys, routes the widgets' messages and opens the other screens (`Launchers`). The user's working state (the
shown dialog, the runs, branches, the tree index) is the `Workbench`'s; each widget owns its own state and keys
and follows the workbench's news by itself. The screen is the workbench's run host (runs go on in its workers)
and sequences what spans widgets: opening a dialog shows it in the pane, then points the drawer at it; a branch
is shown before its run starts.

Nothing here talks to the network or the database directly: dialogs, search and persistence go through the
engine's `Center`, via the workbench.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.binding import BindingType
from textual.worker import Worker

from visindigo.engine import Center, Dialog, Message
from visindigo.engine.storage.errors import StoreError
from visindigo.tui.chat.composer import ComposerInput
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.common.copy_actions import copy_last_answer, save_last_copy
from visindigo.tui.common.messages import DialogsChanged, WorkbenchNews, listen
from visindigo.tui.main import modals
from visindigo.tui.main.keys import BINDINGS, PALETTE, PaletteCommand, palette_commands
from visindigo.tui.main.launchers import AppServices, Launchers
from visindigo.tui.main.modals import tell_refusals
from visindigo.tui.main.workspace import Workspace
from visindigo.tui.workbench import events as news

if TYPE_CHECKING:
    from textual.widgets import Markdown  # (its module loads markdown_it: not on the way to the first frame)

    from visindigo.tui.main.context import ContextActions
    from visindigo.tui.main.dialog_tree import DialogTree  # (the sidebar makes it after the first frame)

#: Seconds between looks at the store's inbox for dialogs `visindigo ask` wrote beside the app.
INBOX_CHECK = 2.0


class MainScreen(Workspace):
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
        services: AppServices | None = None,
    ) -> None:
        super().__init__(center, stream_fps=stream_fps, dialog=dialog)
        self.services = services
        self.launch = Launchers(self, services)
        self._unsubscribe: Callable[[], None] = lambda: None
        self.pane.context_keys = True  # p pins, i shows an answer's figures, l a summary's ledger

    @cached_property
    def context(self) -> ContextActions:
        """The context's flows and their modals (`main.context`), made when first used, after the first frame."""
        from visindigo.tui.main.context import ContextActions

        return ContextActions(self)

    async def on_mount(self) -> None:
        self._unsubscribe = listen(self, self.workbench, news.RunStarted, news.RunEnded)
        await self.open_dialog(self.dialog)
        self.composer.input.focus()
        self.call_after_refresh(self._after_first_frame)
        self.set_interval(INBOX_CHECK, self._take_inbox, name="inbox")
        if self.services is not None:
            await self.services.main_screen_ready(self)

    def on_unmount(self) -> None:
        self._unsubscribe()

    def on_screen_resume(self) -> None:
        """Back from a modal (providers, MCP servers, the model picker): the status line may say something new."""
        self.status_line.refresh_now()

    def _take_inbox(self) -> None:
        """Dialogs `visindigo ask` left beside this app (`engine.storage.inbox`) go into the store and the tree
        soon after they are written, not only at the next listing; a look at an empty folder otherwise."""
        try:
            taken = self.center.take_inbox()
        except StoreError:  # a repair under way: the files wait for the next look
            return
        if taken:
            self.workbench.refresh_tree()

    async def _after_first_frame(self) -> None:
        """The tree (hundreds of dialogs), the footer's keys and the attachment chips: the first frame has none."""
        self.workbench.refresh_tree()
        await self.sidebar.populate()  # draws the tree now, as the first thing after the first frame
        await self.mount_footer()
        await self.composer.mount_chips(self.workbench)

    def now_showing(self, dialog: Dialog) -> None:
        """The pane shows `dialog` now; the meter asks for its model's window after this frame (the asking loads
        the provider adapters, which the first frame does without)."""
        super().now_showing(dialog)
        if (context := self.workbench.context).window_wanted(dialog):
            self.call_after_refresh(lambda: self.in_worker(context.learn_window(dialog), group="window"))

    # --- what the widgets report ------------------------------------------------------------------------------

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        event = message.event
        self.refresh_bindings()  # "esc Cancel" in the footer while the shown dialog runs
        if isinstance(event, news.RunEnded) and event.outcome == "failed" and event.dialog_id == self.dialog.id:
            run = self.runs.get(event.dialog_id)
            if run is not None and run.context_exceeded:
                self.context.after_refusal(self.dialog, event.error)
        if isinstance(event, news.RunEnded) and event.outcome == "failed" and event.dialog_id != self.dialog.id:
            shown_elsewhere = self.services is not None and self.services.feature_screens.in_comparison(
                self.app, event.dialog_id
            )
            if not shown_elsewhere:  # a comparison column shows its own failure
                self.notify(f"A run in another dialog failed: {event.error}", severity="error", markup=False)

    @on(MessagePane.CursorMoved)
    @on(MessagePane.StreamReport)
    def _pane_reported(self, event: MessagePane.StreamReport | MessagePane.CursorMoved) -> None:
        if event.pane is self.pane:
            self.drawer.follow_pane(self.pane, event)
            if isinstance(event, MessagePane.Frame):
                self.status_line.refresh_with_frame()

    @on(MessagePane.DialogSwitched)
    def _switched(self, event: MessagePane.DialogSwitched) -> None:
        if event.pane is self.pane:
            self.now_showing(event.dialog)

    @on(MessagePane.ContextRequested)
    def _context_requested(self, event: MessagePane.ContextRequested) -> None:
        if event.pane is self.pane:
            actions = self.context
            {"pin": actions.pin, "details": actions.details, "ledger": actions.ledger}[event.what](event.index)

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
        if not text.strip() and not self.workbench.pending_files.of(self.dialog.id):
            return
        if self.composer.editing_index is not None:
            index = self.composer.editing_index
            self.composer.stop_edit(restore_draft=True)
            await self.edit_message(index, text)
            return
        if self.composer.template is None:
            await self.send(text)
        else:  # "edit first" from the template form: still the template's message
            self.send_edited_template(self.composer.template, text)

    @on(ComposerInput.RecallRequested)
    def _recall(self, event: ComposerInput.RecallRequested) -> None:
        event.stop()
        self.action_edit_last()

    async def on_dialog_tree_open_dialog(self, event: DialogTree.OpenDialog) -> None:
        focus = event.message_index if event.message_index >= 0 else None
        await self.open_dialog_id(event.dialog_id, focus_index=focus)
        if self.panels.close_sidebar_overlay():
            self.composer.input.focus()

    def on_dialog_tree_delete_requested(self, event: DialogTree.DeleteRequested) -> None:
        self.delete_dialog(event.dialog_id)

    def on_dialogs_changed(self, event: DialogsChanged) -> None:
        self.refresh_tree(event.select_id)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.in_worker(modals.confirm_link(self.app, event.href), group="link")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        modals.report_failure(self, event)

    def on_composer_input_resource_requested(self, event: ComposerInput.ResourceRequested) -> None:
        """`@` typed where a word starts: the one list of files and resources to attach."""
        self.action_attach_resource()

    def on_composer_input_paths_pasted(self, event: ComposerInput.PathsPasted) -> None:
        self.files.attach(event.paths)

    def on_paste(self, event: events.Paste) -> None:
        """A file dropped on the terminal (or on `serve`'s page) while the dialog list or the messages have the
        focus: it is attached all the same. A paste an input or an editor takes never gets here as paths."""
        from textual.widgets import Input, TextArea

        focused = self.focused
        if isinstance(focused, Input) or (isinstance(focused, TextArea) and not focused.read_only):
            return
        from visindigo.engine.attachments import pasted_paths

        paths = pasted_paths(event.text, self.files.start_folder)
        if paths:
            event.stop()
            self.files.attach(paths)

    async def send(self, text: str | Message) -> None:
        """A question that will not fit the model's window waits for the user's choice (`main.context`)."""
        if isinstance(text, str) and not self.context.may_send(text):
            return
        await super().send(text)

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
        self.launch.attach_resource()

    def action_attach_file(self) -> None:
        self.files.open_tree()

    def action_show_picture(self) -> None:
        cursor = self.pane.cursor
        self.files.show_picture(cursor.index if cursor is not None and self.focused is self.pane else None)

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
        """The dialog this one branched from; for a tail fork, the dialog and message it was taken from."""
        from visindigo.tui.workbench.timeline import forked_from

        parent = self.workbench.parent_of(self.dialog.id)
        if parent is None and (origin := forked_from(self.dialog)) is not None:
            await self.open_dialog_id(origin[0], focus_index=origin[1])
            return
        await self._tree_jump(parent, "This dialog is not a branch of another.")

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

    # --- keys that open another screen (`Launchers`) ------------------------------------------------------------

    def action_pick_model(self) -> None:
        self.launch.pick_model()

    def action_compare(self) -> None:
        self.launch.compare()

    def action_providers(self) -> None:
        self.launch.providers()

    def action_mcp_servers(self) -> None:
        self.launch.mcp_servers()

    def action_skills(self) -> None:
        self.launch.skills()

    def action_package_tools(self) -> None:
        self.launch.package_tools()

    def action_templates(self) -> None:
        self.launch.templates()

    def action_parameters(self) -> None:
        self.launch.parameters()

    def action_rename(self) -> None:
        self.in_worker(modals.rename(self.app, self.workbench))

    def action_diff_alternatives(self) -> None:
        self.launch.diff_alternatives()

    def action_divergences(self) -> None:
        self.launch.divergences()

    def action_scores(self) -> None:
        self.launch.scores()

    def action_timeline(self) -> None:
        self.launch.timeline()

    def action_fork_here(self) -> None:
        self.launch.fork_here()

    def action_tail_fork(self) -> None:
        self.launch.tail_fork()

    def action_label(self) -> None:
        self.launch.label()

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of the screen (and of the message under the cursor), for the command palette."""
        return palette_commands(self.BINDINGS, self.run_action, self.pane)
