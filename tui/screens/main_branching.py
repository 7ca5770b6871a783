"""Branches: regenerate and edit make new dialogs (nothing is overwritten), and ◀ ▶ steps through the
alternatives where a family's dialogs part. The rules are in `tui.branches`; this opens and runs the results."""

from __future__ import annotations

from textual import on

from visindigo.engine import Role

from .. import branches
from ..widgets.composer import ComposerInput
from ..widgets.message_pane import MessagePane
from .main_base import MainBase


class BranchingPart(MainBase):
    """Regenerate, edit, and stepping between alternatives."""

    async def action_regenerate(self) -> None:
        cursor = self.pane.cursor
        index = cursor.index if cursor is not None and self.focused is self.pane else None
        await self.regenerate(index)

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
        self.call_after_refresh(self._reveal_alternatives, index)

    def _reveal_alternatives(self, index: int, tries: int = 10) -> None:
        """Bring ◀ n/m ▶ of message `index` on screen: an answer taller than the pane opens at its top, which
        left the marker (at its end) below the fold, so the user could not tell which alternative was shown."""
        from ..widgets.message_view import AlternativeSwitch  # Markdown's module: not on the start-up path

        view = self.pane.view_for(index)
        switches = view.query(AlternativeSwitch) if view is not None else None
        if not switches:
            return
        pane, switch = self.pane, switches.first()
        if not switch.region.area:  # not laid out yet (the pane was just filled): after the next refresh
            if tries > 0:
                self.call_after_refresh(self._reveal_alternatives, index, tries - 1)
            return
        if pane.region.contains_region(switch.region):
            return
        pane.anchor(False)  # the pane stuck to the end of the dialog would scroll straight back
        # the marker on the pane's last line, under the end of the answer it belongs to
        content_y = switch.region.y - pane.region.y + pane.scroll_y
        pane.scroll_to(y=max(0, content_y - pane.scrollable_content_region.height + 1), animate=False, immediate=True)
