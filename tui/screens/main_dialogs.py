"""Showing a dialog: the message pane, its alternatives (◀ n/m ▶), and the reasoning drawer that follows the
message under the cursor."""

from __future__ import annotations

from textual import on

from visindigo.engine import Dialog, Message, Role

from .. import branches
from ..widgets.message_pane import MessagePane
from .main_base import MainBase


class DialogsPart(MainBase):
    """Opening dialogs and keeping the drawer on the right message."""

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
