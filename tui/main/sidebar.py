"""The sidebar: the search box above the dialog tree (`dialog_tree`), both kept in step with the workbench.

It rebuilds the tree when the workbench's tree changes, marks the dialogs that are answering (●) and the shown
one (bold), and runs its own search, which replaces the tree with a flat list of hits from the store's full-text
search until the box is cleared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Static

from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench import events as news
from visindigo.tui.workbench.branches import TreeIndex

if TYPE_CHECKING:
    from visindigo.tui.main.dialog_tree import DialogTree

#: Seconds of quiet typing before a search runs.
SEARCH_DELAY = 0.25


class SearchBox(Input):
    """The search box. Its CSS holds the rules of all the sidebar's parts, as written (not scoped to this class):
    they are parsed when the parts are first mounted, just after the first frame, and not for the first frame,
    which shows the sidebar empty. It is mounted first of them, so its rules are there when the others are styled.
    """

    SCOPED_CSS = False
    DEFAULT_CSS = """
    Sidebar > Input {
        border: none;
        height: 1;
        padding: 0 1;
        background: $surface;
    }
    Sidebar > Input:focus {
        border: none;  /* Input:focus brings its tall border back, which would hide the one line of text */
        background: $boost;
    }
    Sidebar > .hint {
        color: $text-muted;
        height: auto;
        padding: 0 1;
        display: none;
    }
    Sidebar > .hint.-shown {
        display: block;
    }
    Sidebar > DialogTree {
        height: 1fr;
        overflow-x: hidden;
        background: transparent;
        padding: 0;
        scrollbar-size-vertical: 1;
    }
    """


class Sidebar(Vertical):
    """The search box above the dialog tree; keeps both in step with the workbench."""

    DEFAULT_CSS = """
    Sidebar {
        width: 30;
        height: 1fr;
        border-right: solid $panel;
    }
    """

    def __init__(self, workbench: Workbench, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.workbench = workbench
        self.search_input = SearchBox(placeholder="/ search dialogs", id="dialog-search")
        self._tree: DialogTree | None = None
        self.hint = Static(Content(""), classes="hint")
        self._timer: Timer | None = None
        self._unsubscribe: Callable[[], None] = lambda: None
        #: The index and selection drawn last: news of a tree already drawn does not rebuild it again.
        self._drawn: tuple[TreeIndex, str] | None = None

    def on_mount(self) -> None:
        self._unsubscribe = listen(
            self, self.workbench, news.TreeChanged, news.ShownChanged, news.RunStarted, news.RunEnded
        )

    def on_unmount(self) -> None:
        self._unsubscribe()

    def compose(self) -> ComposeResult:
        return iter(())  # mounted after the screen's first frame: see `populate`

    @property
    def dialog_tree(self) -> DialogTree:
        """The tree, made when first asked for (by `populate`): its module and the tree widget it builds on are
        not loaded on the way to the first frame."""
        if self._tree is None:
            from visindigo.tui.main.dialog_tree import DialogTree

            self._tree = DialogTree(id="dialog-tree")
        return self._tree

    @property
    def tree_mounted(self) -> bool:
        return self._tree is not None and self._tree.is_attached

    async def populate(self) -> None:
        """Mount the search box and the tree, and draw the workbench's tree index at once. The screen calls this
        once its first frame is on the terminal, so start-up does not wait for a widget that hundreds of dialogs
        will fill anyway."""
        if not self.tree_mounted:
            await self.mount_all([self.search_input, self.hint, self.dialog_tree])  # the search box first: its CSS
        self.refresh_tree()

    @property
    def query_text(self) -> str:
        return self.search_input.value.strip()

    def set_hint(self, text: str) -> None:
        self.hint.update(Content(text))
        self.hint.set_class(bool(text), "-shown")

    @on(Input.Changed, "#dialog-search")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(SEARCH_DELAY, self._settled)

    @on(Input.Submitted, "#dialog-search")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._settled()
        self.dialog_tree.focus()

    def _settled(self) -> None:
        self._timer = None
        if self.query_text:
            self._search(self.query_text)
        else:
            self.set_hint("")
            self.refresh_tree()

    def _search(self, query: str) -> None:
        try:
            found = self.workbench.search(query)
        except Exception as error:  # a broken index must not break the screen; say what happened
            self.set_hint(f"search failed: {error}")
            return
        from visindigo.tui.main.dialog_tree import SearchHit

        hits = [SearchHit(h.dialog_id, h.title, h.snippet, h.message_index) for h in found]
        self.dialog_tree.show_hits(hits)
        self.set_hint(f"{len(hits)} found · esc clears" if hits else "nothing found · esc clears")

    # --- following the workbench ---------------------------------------------------------------------------

    def refresh_tree(self, select_id: str = "") -> None:
        """Show the workbench's tree index (or re-run the search that is showing)."""
        if not self.tree_mounted:
            return
        if self.query_text:
            self._drawn = None
            self._search(self.query_text)
            return
        drawn = (self.workbench.tree_index, select_id or self.workbench.shown.id)
        if self._drawn is not None and drawn[0] is self._drawn[0] and drawn[1] == self._drawn[1]:
            return
        self._drawn = drawn
        from visindigo.tui.workbench.timeline import labels_by_dialog

        running = set(self.workbench.runs.running_ids())
        self.dialog_tree.labels = labels_by_dialog(self.workbench.family(self.workbench.shown))
        self.dialog_tree.rebuild(*drawn, running)

    def mark(self, *dialog_ids: str) -> None:
        """Update the labels of these dialogs (running mark, current in bold) without rebuilding the tree."""
        if self.query_text or not self.tree_mounted:
            return
        running = set(self.workbench.runs.running_ids())
        shown = self.workbench.shown.id
        for dialog_id in dialog_ids:
            self.dialog_tree.relabel(
                self.workbench.tree_index, dialog_id, running=dialog_id in running, current=dialog_id == shown
            )

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        match message.event:
            case news.TreeChanged(select_id=select_id):
                self.refresh_tree(select_id)
            case news.ShownChanged(dialog=dialog, previous=previous):
                if previous is not None:
                    self.mark(previous.id)
                self.mark(dialog.id)
                node = self.dialog_tree.node_for(dialog.id) if self.tree_mounted else None
                if node is not None:
                    self.dialog_tree.move_cursor(node)
            case news.RunStarted(dialog_id=dialog_id) | news.RunEnded(dialog_id=dialog_id):
                self.mark(dialog_id)

    def clear_search(self) -> None:
        if self.search_input.value:
            self.search_input.value = ""
            if self._timer is not None:
                self._timer.stop()
            self._settled()
