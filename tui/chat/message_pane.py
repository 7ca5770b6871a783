"""The message pane: one dialog's messages, live while it runs, with a cursor and the keys that act on it.

Bound to one dialog at a time (`show` rebinds it), mountable anywhere, it follows the workbench's news about its
dialog and draws what streamed in at its own frame rate (`frame_clock`), so panes on two running dialogs stream
side by side. A cursor (↑/↓) picks the message its keys act on; edit, regenerate and the context keys go to the
screen as messages, and its stream reports (opened, a frame, an answer bound, the run over) feed the drawer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message as TextualMessage

from visindigo.engine import Dialog, Role
from visindigo.tui.chat.frame_clock import FrameClock
from visindigo.tui.chat.message_list import BATCH, EarlierMarker, MessageList, Notice
from visindigo.tui.common.copy_actions import copy_text, save_copy
from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.common.sanitize import clean
from visindigo.tui.workbench import RunState, Workbench
from visindigo.tui.workbench import events as news
from visindigo.tui.workbench.progress_text import is_waiting, note_line, tool_progress_line

__all__ = ["BATCH", "EarlierMarker", "MessagePane", "Notice"]

if TYPE_CHECKING:
    from visindigo.engine.events import Event
    from visindigo.tui.chat.message_view import MessageView


class MessagePane(MessageList, can_focus=True):
    """The messages of one dialog: ↑/↓ move the cursor, home/end go to the first or last message however long
    the dialog, y copies, 1-9 copy code block n, s saves, e edits your message and r regenerates an answer
    (each makes a branch), ←/→ or [/] step through the alternatives (◀ n/m ▶), enter expands a tool call, p pins
    the message through compactions (again: unpins), i shows its tokens and cost, l on a compaction summary
    shows the messages it replaced."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous message", show=False),
        Binding("down", "cursor(1)", "Next message", show=False),
        Binding("home", "first", "First message", show=False),
        Binding("end", "last", "Last message", show=False),
        Binding("y", "copy", "Copy message", show=False),
        Binding("s", "save", "Save message to a file", show=False),
        Binding("e", "edit", "Edit (new branch)", show=False),
        Binding("r", "regenerate", "Regenerate this answer (new branch)", show=False),
        Binding("left,[", "step(-1)", "Previous alternative", show=False),
        Binding("right,]", "step(1)", "Next alternative", show=False),
        Binding("enter", "toggle_tool", "Expand / collapse tool call", show=False),
        Binding("p", "context('pin')", "Pin / unpin (kept through compactions)", show=False),
        Binding("i", "context('details')", "Tokens, cache and cost", show=False),
        Binding("l", "context('ledger')", "What a summary replaced", show=False),
        *[Binding(str(n), f"copy_code({n})", f"Copy code block {n}", show=False) for n in range(1, 10)],
    ]

    DEFAULT_CSS = """
    MessagePane {
        height: 1fr;
        padding: 0 0 0 1;
        scrollbar-size-vertical: 1;
    }
    MessagePane:focus {
        background-tint: $foreground 3%;
    }
    """

    class Request(TextualMessage):
        """Base of what the pane asks the screen to do; `index` is the message's index in the dialog."""

        def __init__(self, pane: MessagePane, index: int) -> None:
            super().__init__()
            self.pane = pane
            self.index = index

        @property
        def control(self) -> MessagePane:
            return self.pane

    class EditRequested(Request):
        """Edit the user's message at `index` (makes a branch)."""

    class RegenerateRequested(Request):
        """Regenerate the answer containing `index` (makes a branch)."""

    class ContextRequested(Request):
        """Pin the message at `index`, show its figures or its ledger (`what`: "pin", "details", "ledger")."""

        def __init__(self, pane: MessagePane, index: int, what: str) -> None:
            super().__init__(pane, index)
            self.what = what

    class StreamReport(TextualMessage):
        """Base of what the pane reports about its dialog's stream, which the drawer and the status line follow."""

        def __init__(self, pane: MessagePane, dialog: Dialog) -> None:
            super().__init__()
            self.pane = pane
            self.dialog = dialog

    class StreamStarted(StreamReport):
        """A new answer began streaming (round `round` of the run)."""

        def __init__(self, pane: MessagePane, dialog: Dialog, round: int) -> None:
            super().__init__(pane, dialog)
            self.round = round

    class Frame(StreamReport):
        """A frame drew new text or reasoning of `run`."""

        def __init__(self, pane: MessagePane, dialog: Dialog, run: RunState) -> None:
            super().__init__(pane, dialog)
            self.run = run

    class AnswerArrived(StreamReport):
        """The answer at `index` is complete (the streamed view is bound to it)."""

        def __init__(self, pane: MessagePane, dialog: Dialog, index: int) -> None:
            super().__init__(pane, dialog)
            self.index = index

    class RunDone(StreamReport):
        """The run of the pane's dialog is over and the pane shows its outcome."""

    class DialogSwitched(TextualMessage):
        """The pane stepped to an alternative and now shows `dialog`."""

        def __init__(self, pane: MessagePane, dialog: Dialog) -> None:
            super().__init__()
            self.pane = pane
            self.dialog = dialog

    def __init__(
        self, workbench: Workbench, dialog: Dialog | None = None, *, fps: float = 4.0, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.workbench = workbench
        self._initial = dialog
        self.frames = FrameClock(self, fps, self._on_frame)  # (streamed text is drawn at its frame rate)
        self._unsubscribe: Callable[[], None] = lambda: None
        #: Views change in one task at a time: the pane's own (news, frames) or its screen's (`show`).
        self._changing = asyncio.Lock()
        self._reasoning_seen = (0, 0)

    async def on_mount(self) -> None:
        self.frames.start()
        self._unsubscribe = listen(self, self.workbench, news.RunEvent, drawing=lambda: self.frames.running)
        if self._initial is not None:
            await self.show(self._initial)

    def on_unmount(self) -> None:
        self._unsubscribe()

    def _run(self) -> RunState | None:
        return self.workbench.runs.get(self.dialog.id) if self.dialog is not None else None

    async def show(self, dialog: Dialog, *, focus_index: int | None = None) -> None:
        """Bind the pane to `dialog`: its messages, ◀ n/m ▶ where it parts from its family, its live run."""
        async with self._changing:
            run = self.workbench.runs.get(dialog.id)
            alternatives = self.workbench.positions(dialog)
            await self.show_dialog(dialog, alternatives=alternatives, run=run, focus_index=focus_index)
            if run is None:
                return
            if run.streaming:
                self.frames.resume()
            elif run.outcome == "failed" and run.error:
                await self.show_notice(f"The last run failed: {run.error}")

    async def on_workbench_news(self, message: WorkbenchNews) -> None:
        event, dialog = message.event, self.dialog
        if dialog is None:
            return
        if isinstance(event, news.TreeChanged) or (isinstance(event, news.RunEnded) and event.dialog_id != dialog.id):
            # another branch got its answer (a compare column retried) or the tree changed: ◀ n/m ▶ follows
            self.set_alternatives(self.workbench.positions(dialog))
        if not isinstance(event, news.RunEvent) or event.dialog_id != dialog.id:
            return
        async with self._changing:
            if self.dialog is not None and event.dialog_id == self.dialog.id:
                await self._apply(event)

    async def _apply(self, event: news.RunEvent) -> None:
        match event:
            case news.TextArrived():
                self.frames.resume()
            case news.EngineEvent(event=engine_event, round=round_number):
                await self._apply_engine(engine_event, round_number)
            case news.Sent():
                await self.clear_notice()
                self.follow()
            case news.RunEnded(outcome=outcome, error=error):
                await self._run_ended(outcome, error)

    async def _apply_engine(self, event: Event, round_number: int) -> None:
        from visindigo.engine import events as e  # loaded after the first frame (the warm-up)

        assert self.dialog is not None
        match event:
            case e.StreamBegan():
                run = self._run()
                if run is not None and run.notes:
                    await self.show_notice("\n".join(run.notes), info=True)
                else:
                    await self.clear_notice()  # "waiting for …" is over
                await self.open_stream(round_number)
                self.post_message(self.StreamStarted(self, self.dialog, round_number))
                self.frames.resume()
            case e.AnswerMovedToReasoning():
                await self.restart_stream(round_number)
                self.post_message(self.StreamStarted(self, self.dialog, round_number))
                self.frames.resume()
            case e.WaitingForProvider() | e.Notice() | e.EmptyAnswer():
                run = self._run()
                notes = [] if is_waiting(event) or run is None else run.notes
                await self.show_notice("\n".join(notes) or note_line(event), info=True)
            case e.StreamEnded():
                if (run := self._run()) is not None:
                    await self.flush(run, closing=True)  # the last frame: the text as streamed, at once
                await self.stream_closed(round_number)
            case e.MessageAppended(index=index):
                await self.message_added(index)
                if self.dialog.message_at(index).role is Role.ASSISTANT:
                    self.post_message(self.AnswerArrived(self, self.dialog, index))
            case e.MessageUpdated(index=index):
                await self.message_changed(index)
            case e.ToolCallStarted(call_id=call_id, function_id=function_id, arguments=arguments):
                await self.tool_started(call_id, function_id, arguments)
            case e.ToolCallProgress(call_id=call_id):
                await self.tool_progressed(call_id, tool_progress_line(event))
            case e.ToolCallFinished():
                await self.tool_finished(event.call_id, event.result, event.is_error, event.duration)

    async def _run_ended(self, outcome: str, error: str) -> None:
        assert self.dialog is not None
        if (run := self._run()) is not None:
            await self.flush(run)
        await self.resync()
        self.set_alternatives(self.workbench.positions(self.dialog))
        notes = "\n".join(run.notes) + "\n" if run is not None and run.notes else ""
        if outcome == "failed":
            await self.show_notice(f"{notes}The run failed: {error}\nFix the cause, then ctrl+r retries.")
        elif outcome == "cancelled":
            await self.show_notice(f"{notes}Cancelled; what arrived is kept (marked interrupted).", info=True)
        elif notes:
            await self.show_notice(notes.rstrip("\n"), info=True)
        self.post_message(self.RunDone(self, self.dialog))

    async def _on_frame(self) -> None:
        """Draw what streamed in since the last frame (the only place streamed text reaches the screen)."""
        run = self._run()
        if run is None:
            self.frames.pause()
            return
        async with self._changing:
            changed = await self.flush(run)
        reasoning = (run.round, len(run.text.reasoning))
        if reasoning != self._reasoning_seen:
            self._reasoning_seen = reasoning
            changed = True
        if changed and self.dialog is not None:
            self.post_message(self.Frame(self, self.dialog, run))
        else:
            self.frames.pause()

    def on_focus(self) -> None:
        if self.cursor is None and self.views:
            self.select_view(self.views[-1])

    async def action_cursor(self, step: int) -> None:
        views = self.views
        if not views:
            return
        current = self.cursor
        if current is None:
            self.select_view(views[-1])
            return
        position = views.index(current) + step
        if position < 0:
            if await self.load_earlier():
                views = self.views
                position = views.index(current) - 1
            else:
                self._scroll_quietly(lambda: self.scroll_home(animate=False))
                return
        if position >= len(views):
            if await self.load_later():
                views = self.views
                position = views.index(current) + 1 if current in views else len(views) - 1
            else:
                self.scroll_end(animate=False)
                return
        self.select_view(views[max(0, min(position, len(views) - 1))])

    async def action_first(self) -> None:
        """The dialog's first message, in one step however long the dialog is."""
        if self.first_mounted > 0:
            async with self._changing:
                await self.show_start()
        if self.views:
            self.select_view(self.views[0], scroll=False)
        self._scroll_quietly(lambda: self.scroll_home(animate=False, immediate=True))

    async def action_last(self) -> None:
        if not self.window.reaches_end:
            await self.show_end()
        if self.views:
            self.select_view(self.views[-1], scroll=False)
        self.follow()

    async def show_end(self) -> None:
        """The dialog's last messages with its live reply, as when it was opened."""
        if self.dialog is not None:
            await self.show(self.dialog)

    def _target(self) -> MessageView | None:
        view = self.cursor
        if view is None:
            self.notify("Move the cursor to a message first (↑/↓ in the messages).", severity="warning")
        return view

    def action_copy(self) -> None:
        if (view := self._target()) is not None and view.index is not None:
            copy_text(self, self.workbench, view.copy_text(), "message")

    def action_save(self) -> None:
        if (view := self._target()) is not None and view.index is not None:
            title = self.dialog.title if self.dialog is not None else ""
            save_copy(self, self.workbench, view.copy_text(), "message", title)

    def action_copy_code(self, number: int) -> None:
        from visindigo.tui.common.copying import code_blocks

        view = self._target()
        if view is None or view.index is None:
            return
        blocks = code_blocks(view.message.content)
        if not 1 <= number <= len(blocks):
            have = f"it has {len(blocks)}" if blocks else "it has none"
            self.notify(f"This message has no code block {number} ({have}).", severity="warning")
            return
        copy_text(self, self.workbench, clean(blocks[number - 1]), f"code block {number}")

    def action_edit(self) -> None:
        view = self._target()
        if view is None or view.index is None:
            return
        if view.message.role not in (Role.USER, Role.PROMPT):
            self.notify("Only your own messages can be edited; r regenerates an answer.", severity="warning")
            return
        self.post_message(self.EditRequested(self, view.index))

    def action_regenerate(self) -> None:
        if (view := self._target()) is not None and view.index is not None:
            self.post_message(self.RegenerateRequested(self, view.index))

    #: Whether p / i / l (pin, an answer's figures, a summary's ledger) are this pane's keys: the main screen's
    #: pane says yes; a comparison's columns leave p to the comparison (it picks the answer).
    context_keys = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.context_keys if action == "context" else True

    def action_context(self, what: str) -> None:  # pin the cursor's message, show its figures or its ledger
        if (view := self._target()) is not None and view.index is not None:
            self.post_message(self.ContextRequested(self, view.index, what))

    async def action_step(self, step: int) -> None:
        view = self._target()
        if view is None or view.index is None:
            return
        if view.alternatives is None:
            self.notify("No alternatives here: ◀ n/m ▶ marks the messages where branches part.")
            return
        await self.step_alternative(view.index, step)

    async def step_alternative(self, index: int, step: int) -> None:
        """Show the previous (-1) or next (+1) dialog that parts from this one at message `index`."""
        if self.dialog is None:
            return
        target = self.workbench.step_alternative(self.dialog, index, step)
        if target is None:
            return
        await self.show(target, focus_index=index)
        self.focus()
        self.post_message(self.DialogSwitched(self, target))
        self.call_after_refresh(self.reveal_alternatives, index)

    def action_toggle_tool(self) -> None:
        if (view := self._target()) is not None:
            view.toggle_tool()

    async def on_message_view_step_alternative(self, event: MessageView.StepAlternative) -> None:
        event.stop()
        if event.view.index is not None:
            self.select_view(event.view, scroll=False)
            await self.step_alternative(event.view.index, event.step)
