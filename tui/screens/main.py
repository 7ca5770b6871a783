"""The main screen: dialog tree, message pane, reasoning drawer, composer and status line.

The screen owns the shown dialog and the runs. A run is an async worker per dialog (`exclusive`,
`exit_on_error=False`) that drives `dialog.run()` (see `tui.generation`); its messages arrive here and are
routed to the widgets when they concern the shown dialog. Streamed text is drawn by a frame timer at
`stream_fps`, which is what bounds the terminal output (each redraw of a scrolling pane costs tens of KB).

Nothing here talks to the network or the database directly: dialogs, search and persistence go through the
engine's `Center`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from visindigo.engine import Capability, Center, Dialog, Message, NoModelAvailable, Role
from visindigo.engine.approval import Approval, ToolCallRequest

from .. import branches
from ..clipboard import file_stem, save_text
from ..generation import Runs, drive
from ..messages import (
    DialogsChanged,
    MessageAdded,
    MessageChanged,
    RunEnded,
    RunStarted,
    StreamClosed,
    StreamOpened,
    TextArrived,
    ToolFinished,
    ToolStarted,
    UsageChanged,
)
from ..widgets.composer import Composer, ComposerInput
from ..widgets.dialog_tree import DialogTree, Sidebar
from ..widgets.message_pane import MessagePane
from ..widgets.reasoning_drawer import ReasoningDrawer
from ..widgets.status_line import StatusInfo, StatusLine

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from ..app import VisindigoApp

PaletteCommand = tuple[str, str, Callable[[], Any]]
"""(title, help, callback) for the command palette."""


def _title_for(text: str) -> str:
    from visindigo.engine.storage.rows import make_title

    return make_title(text)


class MainScreen(Screen[None]):
    """Where the user works. Every key below is also a command-palette entry (ctrl+p) and on the help (f1)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "escape", "Cancel", id="cancel"),
        Binding("ctrl+n", "new_dialog", "New dialog", id="new-dialog"),
        Binding("ctrl+r", "regenerate", "Regenerate", id="regenerate"),
        Binding(
            "alt+e", "edit_last", "Edit last question (↑ in an empty composer)", show=False, id="edit", priority=True
        ),
        Binding("f2", "pick_model", "Model", id="model-picker", priority=True),
        Binding("f3", "providers", "Providers", show=False, id="providers", priority=True),
        Binding("f4", "mcp_servers", "MCP servers", show=False, id="mcp-servers", priority=True),
        Binding("f5", "skills", "Skills", show=False, id="skills", priority=True),
        Binding("f6,ctrl+t", "templates", "Templates", show=False, id="templates", priority=True),
        Binding("f7", "rename", "Rename dialog", show=False, id="rename", priority=True),
        Binding("f8", "delete_dialog", "Delete dialog", show=False, id="delete-dialog", priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False, id="toggle-sidebar"),
        Binding("f9,ctrl+g", "toggle_drawer", "Reasoning", show=False, id="toggle-drawer", priority=True),
        Binding("ctrl+f,slash", "search", "Search dialogs", show=False, id="search"),
        Binding("alt+y", "copy_last", "Copy last answer", show=False, id="copy-last", priority=True),
        Binding(
            "alt+s", "save_last_copy", "Save the last copy to a file", show=False, id="save-last-copy", priority=True
        ),
        Binding("alt+up", "tree_parent", "Parent dialog", show=False, id="parent-dialog", priority=True),
        Binding("alt+down", "tree_child", "First branch of this dialog", show=False, id="child-dialog", priority=True),
        Binding(
            "alt+left", "tree_sibling(-1)", "Previous sibling dialog", show=False, id="previous-sibling", priority=True
        ),
        Binding("alt+right", "tree_sibling(1)", "Next sibling dialog", show=False, id="next-sibling", priority=True),
        Binding("ctrl+l", "focus_composer", "Go to the composer", show=False, id="focus-composer"),
        Binding("ctrl+o", "focus_messages", "Go to the messages", show=False, id="focus-messages"),
    ]

    HORIZONTAL_BREAKPOINTS = [
        (0, "-narrow"),
        (100, "-medium"),
        (120, "-wide"),
    ]

    def __init__(self, center: Center, *, stream_fps: float = 4.0, dialog: Dialog | None = None) -> None:
        super().__init__()
        self.center = center
        self.runs = Runs()
        self.stream_fps = max(0.5, min(60.0, stream_fps))
        self.dialog: Dialog = dialog if dialog is not None else Dialog(center)
        self.sidebar = Sidebar(id="sidebar")
        self.pane = MessagePane(id="messages")
        self.drawer = ReasoningDrawer(id="drawer")
        self.composer = Composer(id="composer")
        self.status_line = StatusLine(id="status")
        self._frame: Timer | None = None
        self._ticker: Timer | None = None
        self._tree_index = branches.TreeIndex.build([])
        self._alternatives: dict[int, list[Dialog]] = {}
        self._usage_cache: dict[str, tuple[int, tuple[int, int]]] = {}

    @property
    def visindigo(self) -> VisindigoApp:
        from ..app import VisindigoApp

        app = self.app
        assert isinstance(app, VisindigoApp)
        return app

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
        self._frame = self.set_interval(1 / self.stream_fps, self._on_frame, pause=True, name="stream-frame")
        self._ticker = self.set_interval(1.0, self._refresh_status, pause=True, name="status-ticker")
        await self.open_dialog(self.dialog)
        self.composer.input.focus()
        self.call_after_refresh(self._fill_sidebar)  # hundreds of dialogs: after the first frame
        await self.visindigo.main_screen_ready(self)

    # --- dialogs -----------------------------------------------------------------------------------------------

    async def _fill_sidebar(self) -> None:
        await self.sidebar.populate()
        self.refresh_tree()

    def _is_registered(self, dialog: Dialog) -> bool:
        return self.center.has_dialog(dialog.id)

    def refresh_tree(self, select_id: str = "") -> None:
        """Rebuild the tree from the Center's summaries (or re-run the search that is showing)."""
        self._tree_index = branches.TreeIndex.build(self.center.dialog_summaries())
        if self.sidebar.query_text:
            self._run_search(self.sidebar.query_text)
            return
        running = set(self.runs.running_ids())
        self.sidebar.dialog_tree.rebuild(self._tree_index, select_id or self.dialog.id, running)

    def _mark_tree(self, *dialog_ids: str) -> None:
        """Update the labels of these dialogs (running mark, current in bold) without rebuilding the tree."""
        if self.sidebar.query_text:
            return
        running = set(self.runs.running_ids())
        for dialog_id in dialog_ids:
            self.sidebar.dialog_tree.relabel(
                self._tree_index, dialog_id, running=dialog_id in running, current=dialog_id == self.dialog.id
            )

    def _family(self, dialog: Dialog) -> list[Dialog]:
        if dialog.id not in self._tree_index.summaries:
            return [dialog]
        family = []
        for dialog_id in self._tree_index.family(dialog.id):
            member = self.center.get_dialog(dialog_id)
            if member is not None:
                family.append(member)
        return family

    def _compute_alternatives(self) -> dict[int, tuple[int, int]]:
        self._alternatives = branches.alternatives(self.dialog, self._family(self.dialog))
        positions = {}
        for index, choices in self._alternatives.items():
            ids = [d.id for d in choices]
            positions[index] = (ids.index(self.dialog.id) + 1, len(ids))
        return positions

    async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None:
        """Show `dialog` in the pane (its run goes on if it has one) and mark it in the tree."""
        if self.composer.editing_index is not None:
            self.composer.stop_edit()
        previous = self.dialog
        self.dialog = dialog
        run = self.runs.get(dialog.id)
        alternatives = self._compute_alternatives()
        await self.pane.show(dialog, alternatives=alternatives, run=run, focus_index=focus_index)
        if run is not None:
            run.notified = False
            if run.streaming:
                self.drawer.start_stream(run.round)
                self.drawer.feed(run.round, run.reasoning_parts)
                self._resume_frames()
            elif run.outcome == "failed" and run.error:
                await self.pane.show_notice(f"The last run failed: {run.error}")
        if focus_index is None or self.pane.cursor is None:
            self._show_reasoning_of_latest()
        node = self.sidebar.dialog_tree.node_for(dialog.id)
        if node is not None:
            self.sidebar.dialog_tree.move_cursor(node)
        self._mark_tree(previous.id, dialog.id)
        self._refresh_status()

    async def open_dialog_id(self, dialog_id: str, *, focus_index: int | None = None) -> None:
        dialog = self.center.get_dialog(dialog_id)
        if dialog is None:
            self.notify("That dialog no longer exists.", severity="warning")
            self.refresh_tree()
            return
        await self.open_dialog(dialog, focus_index=focus_index)

    def _show_reasoning_of_latest(self) -> None:
        index = self.dialog.find_last_assistant_message()
        if index >= 0:
            message = self.dialog.message_at(index)
            self.drawer.show(message.reasoning, self._drawer_title(message, index))
        else:
            self.drawer.show("", "reasoning")

    @staticmethod
    def _drawer_title(message: Message, index: int) -> str:
        del message  # the model is in the status line; the drawer's one-line title has no room for it
        return f"reasoning · message {index + 1}"

    # --- sending and running ---------------------------------------------------------------------------------

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
        template = self.composer.template
        if template is not None:  # "edit first" from the template form: still the template's message
            if self._refuse_while_running():
                return
            self.composer.stop_edit(restore_draft=True)
            await self.send(replace(template, content=text, meta=dict(template.meta)))
            return
        await self.send(text)

    def _refuse_while_running(self) -> bool:
        if self.runs.is_running(self.dialog.id):
            self.notify("This dialog is still answering: esc cancels it, or wait.", severity="warning")
            return True
        return False

    async def send(self, text: str | Message) -> None:
        """Append the user's message (text, or a message such as a filled template) to the dialog and run it."""
        dialog = self.dialog
        if self._refuse_while_running():
            return
        message = Message(Role.USER, text) if isinstance(text, str) else text
        new_in_tree = not self._is_registered(dialog) or not dialog.title
        if not self._is_registered(dialog):
            self.center.add_dialog(dialog)
        if not dialog.title:
            dialog.title = _title_for(message.content) or message.name
        if isinstance(text, str):
            self.composer.clear()
        await self.pane.clear_notice()
        dialog.append_message(message)
        await self.pane.message_added(dialog.message_count - 1)
        self.pane.follow()
        if new_in_tree:
            self.refresh_tree()
        self.start_run(dialog)

    def start_run(self, dialog: Dialog) -> None:
        """Start the dialog's run worker (refused, with a notice, while one is running)."""
        if self.runs.is_running(dialog.id):
            self.notify("This dialog is already answering.", severity="warning")
            return
        state = self.runs.new(dialog.id)
        state.running = True
        self.run_worker(
            drive(dialog, state, self.post_message, self._approve),
            name=f"run {dialog.title or dialog.id}",
            group=f"run-{dialog.id}",
            exclusive=True,
            exit_on_error=False,
            description="generating an answer",
        )

    def cancel_run(self, dialog_id: str) -> bool:
        """Cancel the dialog's run; the engine keeps the partial answer, marked interrupted."""
        run = self.runs.get(dialog_id)
        if run is None or not run.running:
            return False
        run.cancelling = True
        self.workers.cancel_group(self, f"run-{dialog_id}")
        if self._shown(dialog_id):
            self._refresh_status()
        return True

    async def _approve(self, request: ToolCallRequest) -> Approval:
        """The engine's approval callback: a modal, inside the run's worker."""
        from .approval import ApprovalScreen

        screen = ApprovalScreen(request)
        try:
            return await self.app.push_screen_wait(screen)
        except BaseException:
            if screen.is_attached and self.app.screen is screen:
                self.app.pop_screen()
            raise

    # --- run messages ------------------------------------------------------------------------------------------

    def _shown(self, dialog_id: str) -> bool:
        return dialog_id == self.dialog.id

    def on_run_started(self, event: RunStarted) -> None:
        self._mark_tree(event.dialog_id)
        if self._shown(event.dialog_id) and self._ticker is not None:
            self._ticker.resume()
        self._refresh_status()

    async def on_stream_opened(self, event: StreamOpened) -> None:
        if not self._shown(event.dialog_id):
            return
        await self.pane.open_stream(event.round)
        if self.pane.cursor is None or self.pane.cursor.index is None:
            self.drawer.start_stream(event.round)
        self._resume_frames()

    def on_text_arrived(self, event: TextArrived) -> None:
        if self._shown(event.dialog_id):
            self._resume_frames()

    def _resume_frames(self) -> None:
        if self._frame is not None:
            self._frame.resume()

    async def _on_frame(self) -> None:
        """Draw what streamed in since the last frame (the only place streamed text reaches the screen)."""
        run = self.runs.get(self.dialog.id)
        if run is None:
            if self._frame is not None:
                self._frame.pause()
            return
        run.notified = False
        changed = await self.pane.flush(run)
        changed = self.drawer.feed(run.round, run.reasoning_parts) or changed
        self._refresh_status()
        if not changed and self._frame is not None:
            self._frame.pause()

    async def on_stream_closed(self, event: StreamClosed) -> None:
        if self._shown(event.dialog_id):
            run = self.runs.get(event.dialog_id)
            if run is not None:
                await self.pane.flush(run)
            await self.pane.stream_closed(event.round)

    async def on_message_added(self, event: MessageAdded) -> None:
        if not self._shown(event.dialog_id):
            return
        await self.pane.message_added(event.index)
        message = self.dialog.message_at(event.index)
        if message.role is Role.ASSISTANT and self.drawer.source == "stream":
            self.drawer.show(message.reasoning, self._drawer_title(message, event.index))

    async def on_message_changed(self, event: MessageChanged) -> None:
        if self._shown(event.dialog_id):
            await self.pane.message_changed(event.index)

    async def on_tool_started(self, event: ToolStarted) -> None:
        if self._shown(event.dialog_id):
            await self.pane.tool_started(event.call_id, event.function_id, event.arguments)

    async def on_tool_finished(self, event: ToolFinished) -> None:
        if self._shown(event.dialog_id):
            await self.pane.tool_finished(event.call_id, event.result, event.is_error, event.duration)

    def on_usage_changed(self, event: UsageChanged) -> None:
        if self._shown(event.dialog_id):
            self._refresh_status()

    async def on_run_ended(self, event: RunEnded) -> None:
        self._mark_tree(event.dialog_id)
        if not self._shown(event.dialog_id):
            if event.outcome == "failed":
                self.notify(f"A run in another dialog failed: {event.error}", severity="error", markup=False)
            return
        run = self.runs.get(event.dialog_id)
        if run is not None:
            await self.pane.flush(run)
        await self.pane.resync()
        self.pane.set_alternatives(self._compute_alternatives())
        if event.outcome == "failed":
            await self.pane.show_notice(f"{event.error}\nFix the cause, then ctrl+r retries.")
        elif event.outcome == "cancelled":
            await self.pane.show_notice("Cancelled; what arrived is kept (marked interrupted).", info=True)
        if self.drawer.source == "stream":
            self._show_reasoning_of_latest()
        if self._ticker is not None:
            self._ticker.pause()
        self._refresh_status()

    def on_dialogs_changed(self, event: DialogsChanged) -> None:
        self.refresh_tree(event.select_id)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that failed (a screen that could not open, a bug) is reported, never silently dropped.

        Run workers report their own failures (`RunEnded`); this catches everything else.
        """
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            from ..sanitize import clean

            self.notify(
                clean(f"{event.worker.name or 'a task'} failed: {type(error).__name__}: {error}"),
                severity="error",
                markup=False,
            )

    # --- status line -------------------------------------------------------------------------------------------

    def _usage_of(self, dialog: Dialog) -> tuple[int, int]:
        """Tokens in and out the dialog's answers reported, added up once and then kept up to date.

        Called every frame while a reply streams, so it reads only messages it has not counted yet.
        """
        count = dialog.message_count
        seen, totals = self._usage_cache.get(dialog.id, (0, (0, 0)))
        if count < seen:
            seen, totals = 0, (0, 0)
        input_tokens, output_tokens = totals
        for index in range(seen, count):
            usage = dialog.message_at(index).meta.get("usage")
            if isinstance(usage, dict):
                input_tokens += int(usage.get("input_tokens", 0) or 0)
                output_tokens += int(usage.get("output_tokens", 0) or 0)
        self._usage_cache[dialog.id] = (count, (input_tokens, output_tokens))
        return input_tokens, output_tokens

    def _refresh_status(self) -> None:
        dialog = self.dialog
        provider = self.center.get_provider(dialog.provider_id) if dialog.provider_id else self.center.default_provider
        provider_name = provider.name if provider is not None else (dialog.provider_id or "")
        model_name, marks = dialog.model_id, ""
        if provider is not None:
            try:
                model = provider.pick_model(dialog.capability_requirement | Capability.TEXT, dialog.model_id)
            except NoModelAvailable:
                model = None
            if model is not None:
                model_name, marks = model.label, model.capabilities.marks()
        input_tokens, output_tokens = self._usage_of(dialog)
        run = self.runs.get(dialog.id)
        speed = 0.0
        state = ""
        if run is not None:
            speed = run.tokens_per_second(time.monotonic())
            if run.running:
                output_tokens += run.round_deltas if run.streaming else 0
                state = "generating… esc cancels" if run.streaming else "working…"
                if run.cancelling:
                    state = "cancelling…"
        self.status_line.show(
            StatusInfo(provider_name, model_name, marks, input_tokens, output_tokens, speed, state)
        )

    # --- requests from the message pane --------------------------------------------------------------------------

    @on(MessagePane.CursorMoved)
    def _cursor_moved(self, event: MessagePane.CursorMoved) -> None:
        view = event.view
        if view is None:
            return
        if view.index is None:
            run = self.runs.get(self.dialog.id)
            if run is not None and run.streaming:
                self.drawer.start_stream(run.round)
                self.drawer.feed(run.round, run.reasoning_parts)
            return
        self._show_reasoning_at(view.index)

    def _show_reasoning_at(self, index: int) -> None:
        """The drawer shows the reasoning of the answer at `index`; on a question or a tool result, that of the
        answer that follows it (never what it showed before, which may belong to another dialog)."""
        answer = index
        for position in range(index, self.dialog.message_count):
            role = self.dialog.message_at(position).role
            if role is Role.ASSISTANT:
                answer = position
                break
            if position > index and role in (Role.USER, Role.PROMPT):
                break
        message = self.dialog.message_at(answer)
        reasoning = message.reasoning if message.role is Role.ASSISTANT else ""
        self.drawer.show(reasoning, self._drawer_title(message, answer))

    @on(MessagePane.CopyRequested)
    def _copy_requested(self, event: MessagePane.CopyRequested) -> None:
        if event.save:
            self.save_text(event.text, event.what)
        else:
            self.copy_text(event.text, event.what)

    def copy_text(self, text: str, what: str) -> None:
        """Copy through OSC 52; the notification says how to fall back to a file."""
        if not text:
            self.notify(f"The {what} is empty; nothing copied.", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.visindigo.last_copied = (text, what)
        lines = text.count("\n") + 1
        self.notify(
            f"Copied the {what} ({len(text):,} characters, {lines} lines) to the terminal clipboard (OSC 52). "
            "Nothing arrived? alt+s saves it to a file.",
            markup=False,
        )

    def save_text(self, text: str, what: str) -> Path | None:
        directories = [Path.cwd()]
        if self.center.paths is not None:
            directories.append(self.center.paths.data_dir / "clips")
        try:
            path = save_text(text, directories, file_stem(self.dialog.title, what))
        except OSError as error:
            self.notify(str(error), severity="error", markup=False)
            return None
        self.notify(f"Saved the {what} to {path}", markup=False)
        return path

    @on(ComposerInput.RecallRequested)
    def _recall(self, event: ComposerInput.RecallRequested) -> None:
        event.stop()
        self.action_edit_last()

    @on(MessagePane.EditRequested)
    def _edit_requested(self, event: MessagePane.EditRequested) -> None:
        self.start_edit(event.index)

    def start_edit(self, index: int) -> None:
        message = self.dialog.message_at(index)
        self.composer.start_edit(index, message.content)

    async def edit_message(self, index: int, text: str) -> None:
        """Branch before message `index` with `text` in its place, open the branch and run it."""
        dialog = self.dialog
        if index >= dialog.message_count or dialog.message_at(index).role not in (Role.USER, Role.PROMPT):
            self.notify("That message can no longer be edited.", severity="warning")
            return
        if not self._is_registered(dialog):
            self.center.add_dialog(dialog)
        child = branches.edit(self.center, dialog, index, text)
        self.refresh_tree(child.id)
        await self.open_dialog(child)
        self.pane.follow()
        self.start_run(child)

    @on(MessagePane.RegenerateRequested)
    async def _regenerate_requested(self, event: MessagePane.RegenerateRequested) -> None:
        await self.regenerate(event.index)

    async def regenerate(self, index: int | None = None) -> None:
        """A new branch with another answer (or the same dialog again when it has no answer yet)."""
        dialog = self.dialog
        if self.runs.is_running(dialog.id):
            self.notify("Wait for the answer to finish, or esc to cancel it, before regenerating.")
            return
        if dialog.message_count == 0:
            self.notify("Nothing to regenerate yet: send a message first.", severity="warning")
            return
        if not self._is_registered(dialog):
            self.center.add_dialog(dialog)
        child = branches.regenerate(self.center, dialog, index)
        if child is None:
            await self.pane.clear_notice()
            self.start_run(dialog)
            return
        self.refresh_tree(child.id)
        await self.open_dialog(child)
        self.pane.follow()
        self.start_run(child)

    @on(MessagePane.StepAlternative)
    async def _step_alternative(self, event: MessagePane.StepAlternative) -> None:
        await self.step_alternative(event.index, event.step)

    async def step_alternative(self, index: int, step: int) -> None:
        choices = self._alternatives.get(index)
        if not choices:
            return
        ids = [d.id for d in choices]
        position = (ids.index(self.dialog.id) + step) % len(ids)
        await self.open_dialog(choices[position], focus_index=index)
        self.pane.focus()

    # --- the tree ------------------------------------------------------------------------------------------------

    @on(DialogTree.OpenDialog)
    async def _tree_open(self, event: DialogTree.OpenDialog) -> None:
        focus = event.message_index if event.message_index >= 0 else None
        await self.open_dialog_id(event.dialog_id, focus_index=focus)
        if self.has_class("-narrow") and self.has_class("-sidebar-open"):
            self.remove_class("-sidebar-open")
            self.composer.input.focus()

    @on(DialogTree.DeleteRequested)
    def _tree_delete(self, event: DialogTree.DeleteRequested) -> None:
        self.delete_dialog(event.dialog_id)

    @on(Sidebar.SearchChanged)
    def _search_changed(self, event: Sidebar.SearchChanged) -> None:
        if event.query:
            self._run_search(event.query)
        else:
            self.sidebar.set_hint("")
            self.refresh_tree()

    def _run_search(self, query: str) -> None:
        from ..widgets.dialog_tree import SearchHit

        try:
            found = self.center.search(query, limit=100)
        except Exception as error:  # a broken index must not break the screen; say what happened
            self.sidebar.set_hint(f"search failed: {error}")
            return
        hits = [SearchHit(h.dialog_id, h.title, h.snippet, h.message_index) for h in found]
        self.sidebar.dialog_tree.show_hits(hits)
        self.sidebar.set_hint(f"{len(hits)} found · esc clears" if hits else "nothing found · esc clears")

    @work(group="delete", exclusive=True, exit_on_error=False)
    async def delete_dialog(self, dialog_id: str) -> None:
        """Ask, then delete; the dialog's branches move up to its parent, so none is lost."""
        from .confirm import ConfirmScreen

        summary = self._tree_index.summaries.get(dialog_id)
        if summary is None and not self.center.has_dialog(dialog_id):
            self.notify("That dialog is not saved yet; there is nothing to delete.")
            return
        title = (summary.title if summary else "") or "New dialog"
        branch_count = len(self._tree_index.children.get(dialog_id, []))
        body = f"Delete “{title}” and its {summary.message_count if summary else 0} messages?"
        if branch_count:
            body += f"\nIts {branch_count} branch(es) stay and move up one level."
        if not await self.app.push_screen_wait(ConfirmScreen("Delete dialog", body, "Delete", danger=True)):
            return
        self.cancel_run(dialog_id)
        parent = self._tree_index.parent(dialog_id)
        if not self.center.remove_dialog(dialog_id):
            self.notify("The dialog could not be deleted (it was not found).", severity="warning")
            return
        self.notify(f"Deleted “{title}”.", markup=False)
        if self.dialog.id == dialog_id:
            target = self.center.get_dialog(parent) if parent else None
            self.refresh_tree()
            await self.open_dialog(target if target is not None else Dialog(self.center))
        self.refresh_tree()

    # --- link clicks -----------------------------------------------------------------------------------------------

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Links in model text never open by themselves (Markdown(open_links=False)): ask first."""
        event.stop()
        self._confirm_link(event.href)

    @work(group="link", exclusive=True, exit_on_error=False)
    async def _confirm_link(self, href: str) -> None:
        from ..sanitize import clean
        from .confirm import ConfirmScreen

        href = clean(href)
        if await self.app.push_screen_wait(
            ConfirmScreen("Open link?", f"The model's text links to:\n\n{href}\n\nOpen it in your browser?", "Open")
        ):
            self.app.open_url(href)

    # --- actions (keys and palette) ------------------------------------------------------------------------------

    async def action_escape(self) -> None:
        if self.cancel_run(self.dialog.id):  # the status line says "cancelling…" until the run has ended
            return
        if self.composer.busy:
            self.composer.stop_edit()
            return
        if self.has_class("-sidebar-open") and self.has_class("-narrow"):
            self.remove_class("-sidebar-open")
            self.composer.input.focus()
            return
        if self.focused is self.sidebar.search_input or self.sidebar.query_text:
            self.sidebar.clear_search()
        self.composer.input.focus()

    async def action_new_dialog(self) -> None:
        if self.dialog.message_count == 0 and not self._is_registered(self.dialog):
            self.composer.input.focus()
            return
        fresh = Dialog(self.center)
        fresh.provider_id = self.dialog.provider_id
        fresh.model_id = self.dialog.model_id
        await self.open_dialog(fresh)
        self.refresh_tree()
        self.composer.input.focus()

    async def action_regenerate(self) -> None:
        cursor = self.pane.cursor
        index = cursor.index if cursor is not None and self.focused is self.pane else None
        await self.regenerate(index)

    def action_edit_last(self) -> None:
        cursor = self.pane.cursor
        if cursor is not None and cursor.index is not None and cursor.message.role in (Role.USER, Role.PROMPT):
            self.start_edit(cursor.index)
            return
        for index in range(self.dialog.message_count - 1, -1, -1):
            if self.dialog.message_at(index).role in (Role.USER, Role.PROMPT):
                self.start_edit(index)
                return
        self.notify("There is no message of yours to edit yet.", severity="warning")

    def action_toggle_sidebar(self) -> None:
        self._toggle_panel("sidebar", self.sidebar)
        if self.has_class("-sidebar-open"):
            self.call_after_refresh(self.sidebar.dialog_tree.focus)  # once the panel is laid out

    def action_toggle_drawer(self) -> None:
        self._toggle_panel("drawer", self.drawer)

    def _toggle_panel(self, name: str, widget: Widget) -> None:
        """Flip a panel: on a narrow screen an opened panel takes the whole width until closed again."""
        shown = widget.display
        if self.has_class("-narrow"):  # a temporary overlay: closing it returns to the automatic layout
            self.set_class(not shown, f"-{name}-open")
            self.remove_class(f"-{name}-closed")
        else:
            self.set_class(not shown, f"-{name}-open")
            self.set_class(shown, f"-{name}-closed")

    def action_search(self) -> None:
        if not self.sidebar.region.width:
            self.add_class("-sidebar-open")
            self.remove_class("-sidebar-closed")
        self.sidebar.search_input.focus()

    def action_copy_last(self) -> None:
        index = self.dialog.find_last_assistant_message()
        if index < 0:
            self.notify("There is no answer to copy yet.", severity="warning")
            return
        message = self.dialog.message_at(index)
        from ..sanitize import clean

        self.copy_text(clean(message.content), "last answer")

    def action_save_last_copy(self) -> None:
        copied = self.visindigo.last_copied
        if copied is None:
            self.notify("Nothing was copied yet.", severity="warning")
            return
        self.save_text(*copied)

    def action_focus_composer(self) -> None:
        self.composer.input.focus()

    def action_focus_messages(self) -> None:
        self.pane.focus()

    async def _tree_jump(self, target: str | None, missing: str) -> None:
        if target is None:
            self.notify(missing)
            return
        await self.open_dialog_id(target)

    async def action_tree_parent(self) -> None:
        await self._tree_jump(self._tree_index.parent(self.dialog.id), "This dialog is not a branch of another.")

    async def action_tree_child(self) -> None:
        children = self._tree_index.children.get(self.dialog.id, [])
        await self._tree_jump(children[0] if children else None, "This dialog has no branches.")

    async def action_tree_sibling(self, step: int) -> None:
        await self._tree_jump(self._tree_index.sibling(self.dialog.id, step), "No more dialogs on this level.")

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
                dialog.title = _title_for(last.content) or last.name
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

    def action_delete_dialog(self) -> None:
        self.delete_dialog(self.dialog.id)

    # --- the command palette -----------------------------------------------------------------------------------------

    #: The palette's entries for the screen's actions: (action, title, help). Keys are added from BINDINGS.
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("new_dialog", "New dialog", "Start an empty dialog"),
        ("regenerate", "Regenerate answer", "A new branch with another answer"),
        ("edit_last", "Edit last question", "Change your last message in a new branch"),
        ("escape", "Cancel generation", "Stop the answer being generated; also leaves an edit"),
        ("pick_model", "Choose model", "Provider and model for this dialog"),
        ("providers", "Manage providers", "Add, edit or remove providers"),
        ("mcp_servers", "Manage MCP servers", "Add, enable or disable tool servers"),
        ("skills", "Skills of this dialog", "Resident instructions for this dialog"),
        ("templates", "Insert template", "Fill in a prompt template"),
        ("rename", "Rename dialog", "Give this dialog a title"),
        ("delete_dialog", "Delete dialog", "Delete this dialog after asking; its branches stay"),
        ("toggle_sidebar", "Toggle sidebar", "Show or hide the dialog tree"),
        ("toggle_drawer", "Toggle reasoning drawer", "Show or hide the reasoning"),
        ("search", "Search dialogs", "Full-text search over every dialog"),
        ("copy_last", "Copy last answer", "Copy the last answer to the clipboard (OSC 52)"),
        ("save_last_copy", "Save last copy to a file", "When OSC 52 does not reach your clipboard"),
        ("tree_parent", "Parent dialog", "Open the dialog this one branched from"),
        ("tree_child", "First branch", "Open the first branch of this dialog"),
        ("tree_sibling(-1)", "Previous sibling dialog", "The branch before this one"),
        ("tree_sibling(1)", "Next sibling dialog", "The branch after this one"),
        ("focus_messages", "Go to messages", "Move a cursor through the messages"),
        ("focus_composer", "Go to composer", "Back to typing"),
    ]

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of the screen (and of the message under the cursor), for the command palette."""
        keys: dict[str, str] = {}
        for binding in Binding.make_bindings(self.BINDINGS):
            keys.setdefault(binding.action, binding.key)
        commands: list[PaletteCommand] = []
        for action, title, help_text in self.PALETTE:
            key = keys.get(action)
            shown_help = f"{help_text} ({key})" if key else help_text
            commands.append((title, shown_help, partial(self.run_action, action)))
        cursor = self.pane.cursor
        if cursor is not None and cursor.index is not None:
            number = cursor.index + 1
            pane = self.pane
            commands += [
                (f"Copy message {number}", "The message under the cursor (y)", pane.action_copy),
                (f"Save message {number} to a file", "The message under the cursor (s)", pane.action_save),
            ]
            from ..clipboard import code_blocks

            for n in range(1, min(9, len(code_blocks(cursor.message.content))) + 1):
                commands.append(
                    (f"Copy code block {n} of message {number}", f"key {n}", partial(pane.action_copy_code, n))
                )
            if cursor.message.role in (Role.USER, Role.PROMPT):
                commands.append((f"Edit message {number}", "In a new branch (e)", pane.action_edit))
            else:
                commands.append((f"Regenerate from message {number}", "In a new branch (r)", pane.action_regenerate))
            if cursor.alternatives is not None:
                commands += [
                    ("Previous alternative", "◀ at the cursor (← or [)", partial(pane.action_step, -1)),
                    ("Next alternative", "▶ at the cursor (→ or ])", partial(pane.action_step, 1)),
                ]
        return commands

