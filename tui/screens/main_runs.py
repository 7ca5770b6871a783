"""Sending and running: what Enter in the composer sends, the run worker per dialog, and the worker's messages
routed to the widgets showing that dialog.

A run is an async worker per dialog (`exclusive`, `exit_on_error=False`) that drives `dialog.run()` (see
`tui.generation`). Streamed text is drawn by a frame timer at `stream_fps`, which is what bounds the terminal
output (each redraw of a scrolling pane costs tens of KB).
"""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.worker import Worker, WorkerState

from visindigo.engine import Dialog, Message, Role
from visindigo.engine.approval import Approval, ToolCallRequest

from ..generation import drive
from ..messages import (
    MessageAdded,
    MessageChanged,
    RunEnded,
    RunNoted,
    RunStarted,
    StreamClosed,
    StreamOpened,
    StreamRestarted,
    TextArrived,
    ToolFinished,
    ToolProgressed,
    ToolStarted,
    UsageChanged,
)
from ..widgets.composer import ComposerInput
from .main_base import MainBase, title_for


class RunsPart(MainBase):
    """From the composer to the engine and back."""

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

    async def send(self, text: str | Message) -> None:
        """Append the user's message (text, or a message such as a filled template) to the dialog and run it."""
        dialog = self.dialog
        if self._refuse_while_running():
            return
        message = Message(Role.USER, text) if isinstance(text, str) else text
        if message.role is Role.USER:
            message = self.attach_pending(message)
        new_in_tree = not self._is_registered(dialog) or not dialog.title
        if not self._is_registered(dialog):
            self.center.add_dialog(dialog)
        if not dialog.title:
            dialog.title = title_for(message.content) or message.name
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

    def on_run_started(self, event: RunStarted) -> None:
        self._mark_tree(event.dialog_id)
        self.refresh_bindings()  # "esc Cancel" in the footer while it runs
        if self._shown(event.dialog_id) and self._ticker is not None:
            self._ticker.resume()
        self._refresh_status()

    async def on_stream_opened(self, event: StreamOpened) -> None:
        if not self._shown(event.dialog_id):
            return
        run = self.runs.get(event.dialog_id)
        if run is not None and run.notes:
            await self.pane.show_notice("\n".join(run.notes), info=True)
        else:
            await self.pane.clear_notice()  # "waiting for …" is over
        await self.pane.open_stream(event.round)
        if self._drawer_follows_stream():
            self.drawer.start_stream(event.round)
        self._resume_frames()

    def _drawer_follows_stream(self) -> bool:
        """The drawer follows the answer being generated unless the user put the cursor on an older message.

        The cursor on the question just sent, or on the message that was last before it, is not "older": the
        user was reading the end of the dialog, and that is where the answer appears. Nor is a drawer that
        shows the latest answer (it followed the last run to its end), wherever the cursor was left.
        """
        cursor = self.pane.cursor
        if self.drawer.source == "stream" or cursor is None or cursor.index is None:
            return True
        if cursor.index >= self.dialog.message_count - 2:
            return True
        latest = self.dialog.find_last_assistant_message()
        return latest >= 0 and self.drawer.title == self._drawer_title(self.dialog.message_at(latest), latest)

    async def on_stream_restarted(self, event: StreamRestarted) -> None:
        if not self._shown(event.dialog_id):
            return
        await self.pane.restart_stream(event.round)
        if self._drawer_follows_stream():
            self.drawer.start_stream(event.round)
        self._resume_frames()

    async def on_run_noted(self, event: RunNoted) -> None:
        if not self._shown(event.dialog_id):
            return
        run = self.runs.get(event.dialog_id)
        notes = [] if event.waiting or run is None else run.notes
        await self.pane.show_notice("\n".join(notes) or event.text, info=True)
        self._refresh_status()

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

    async def on_tool_progressed(self, event: ToolProgressed) -> None:
        if self._shown(event.dialog_id):
            await self.pane.tool_progressed(event.call_id, event.text)

    async def on_tool_finished(self, event: ToolFinished) -> None:
        if self._shown(event.dialog_id):
            await self.pane.tool_finished(event.call_id, event.result, event.is_error, event.duration)

    def on_usage_changed(self, event: UsageChanged) -> None:
        if self._shown(event.dialog_id):
            self._refresh_status()

    async def on_run_ended(self, event: RunEnded) -> None:
        self._mark_tree(event.dialog_id)
        self.refresh_bindings()
        if not self._shown(event.dialog_id):
            if event.outcome == "failed":
                self.notify(f"A run in another dialog failed: {event.error}", severity="error", markup=False)
            return
        run = self.runs.get(event.dialog_id)
        if run is not None:
            await self.pane.flush(run)
        await self.pane.resync()
        self.pane.set_alternatives(self._compute_alternatives())
        notes = "\n".join(run.notes) + "\n" if run is not None and run.notes else ""
        if event.outcome == "failed":
            await self.pane.show_notice(f"{notes}{event.error}\nFix the cause, then ctrl+r retries.")
        elif event.outcome == "cancelled":
            await self.pane.show_notice(f"{notes}Cancelled; what arrived is kept (marked interrupted).", info=True)
        elif notes:
            await self.pane.show_notice(notes.rstrip("\n"), info=True)
        if self.drawer.source == "stream":
            self._show_reasoning_of_latest()
        if self._ticker is not None:
            self._ticker.pause()
        self._refresh_status()

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
