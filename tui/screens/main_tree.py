"""The dialog tree and its search: filling and relabelling it, opening and deleting dialogs from it, and moving
to the parent, children and siblings of the shown dialog (alt+arrows)."""

from __future__ import annotations

from textual import on, work

from visindigo.engine import Dialog

from .. import branches
from ..messages import DialogsChanged
from ..sanitize import clean_line
from ..widgets.dialog_tree import DialogTree, Sidebar
from .main_base import MainBase


class TreePart(MainBase):
    """The sidebar's side of the screen."""

    async def _fill_sidebar(self) -> None:
        await self.sidebar.populate()
        self.refresh_tree()

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

    def on_dialogs_changed(self, event: DialogsChanged) -> None:
        self.refresh_tree(event.select_id)

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

    def action_search(self) -> None:
        if not self.sidebar.region.width:
            self.add_class("-sidebar-open")
            self.remove_class("-sidebar-closed")
        self.sidebar.search_input.focus()

    @work(group="delete", exclusive=True, exit_on_error=False)
    async def delete_dialog(self, dialog_id: str) -> None:
        """Ask, then delete; the dialog's branches move up to its parent, so none is lost."""
        from .confirm import ConfirmScreen

        summary = self._tree_index.summaries.get(dialog_id)
        if summary is None and not self.center.has_dialog(dialog_id):
            self.notify("That dialog is not saved yet; there is nothing to delete.")
            return
        title = clean_line(summary.title if summary else "") or "New dialog"
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

    def action_delete_dialog(self) -> None:
        self.delete_dialog(self.dialog.id)

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
