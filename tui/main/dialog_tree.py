"""The dialog tree: every dialog, branches nested under the dialog they replaced (the sidebar holds it).

The tree is built from the workbench's tree index (`DialogSummary` rows), so listing hundreds of dialogs loads
none of their messages; the sidebar (`sidebar`) rebuilds it as the workbench changes, and shows search hits in
it as a flat list. Opening and deleting
go to the screen as messages. Titles are cleaned and shown as plain `Text`: a title may be the first words a
model wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message as TextualMessage
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from visindigo.engine.branch_titles import BranchDifference, branch_difference
from visindigo.tui.common.cursor_rows import CursorTree
from visindigo.tui.common.sanitize import clean, clean_line
from visindigo.tui.workbench.branches import TreeIndex

CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


def ordinal_mark(number: int) -> str:
    """②, ③, ... for branches (the original is ①, shown without a mark)."""
    if number <= 1:
        return ""
    return CIRCLED[number - 1] if number <= len(CIRCLED) else f"({number})"


def when_label(timestamp: float, now: float | None = None) -> str:
    """14:32 for today, 3 Dec 14:32 for another day (local time): when a branch was made."""
    import time

    moment = time.localtime(timestamp)
    today = time.localtime(time.time() if now is None else now)
    if moment[:3] == today[:3]:
        return time.strftime("%H:%M", moment)
    return f"{moment.tm_mday} {time.strftime('%b %H:%M', moment)}"


def difference_label(difference: BranchDifference | None) -> str:
    """What tells a regenerated branch from its parent, for beside its number: "gpt-4o 14:32" or "14:32"."""
    if difference is None:
        return ""
    parts = [" ".join(clean(difference.model).split()), when_label(difference.created_at)]
    return " ".join(p for p in parts if p)


def dialog_label(
    title: str, ordinal: int, *, running: bool = False, current: bool = False, difference: str = ""
) -> Text:
    """● (answering), the branch number and what differs from its parent, then the title. The number comes
    first because a long title is cut off at the sidebar's edge, which would take the number with it."""
    text = Text()
    if running:
        text.append("● ", style="bold")
    mark = ordinal_mark(ordinal)
    if mark:
        text.append(f"{mark} ", style="dim")
    if difference:
        text.append(f"{difference} · ", style="dim italic")
    name = clean_line(title) or "New dialog"
    text.append(name, style="bold" if current else "")
    return text


def _difference(index: TreeIndex, dialog_id: str) -> str:
    parent_id = index.parent(dialog_id)
    parent = index.summaries.get(parent_id) if parent_id else None
    return difference_label(branch_difference(index.summaries[dialog_id], parent))


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: the dialog, the message that matched (-1: the title) and a snippet."""

    dialog_id: str
    title: str
    snippet: str = ""
    message_index: int = -1


class DialogTree(CursorTree[str]):
    """Dialogs by branch. Enter opens one; Delete asks, then deletes it (its branches move up).

    shift+← parent · shift+↑/↓ previous/next sibling (Textual's tree keys).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete", "delete", "Delete dialog", show=False),
    ]

    class OpenDialog(TextualMessage):
        def __init__(self, tree: DialogTree, dialog_id: str, message_index: int = -1) -> None:
            super().__init__()
            self.tree = tree
            self.dialog_id = dialog_id
            self.message_index = message_index

        @property
        def control(self) -> DialogTree:
            return self.tree

    class DeleteRequested(TextualMessage):
        def __init__(self, tree: DialogTree, dialog_id: str) -> None:
            super().__init__()
            self.tree = tree
            self.dialog_id = dialog_id

        @property
        def control(self) -> DialogTree:
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("dialogs", id=id)
        #: Labels of messages (workbench.timeline) per dialog, shown after the dialog's title.
        self.labels: dict[str, list[str]] = {}
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 2
        self._hits: dict[str, SearchHit] = {}
        self._dialog_nodes: dict[str, TreeNode[str]] = {}

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        """The label cut with "…" where the sidebar ends, so a cut title never looks like a whole one."""
        text = super().render_label(node, base_style, style)
        depth = 0
        ancestor = node.parent
        while ancestor is not None:
            depth += 1
            ancestor = ancestor.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        if room > 0 and text.cell_len > room:
            text.truncate(room, overflow="ellipsis")
        return text

    def process_label(self, label: str | Text) -> Text:
        """Labels are always built as `Text` here; a str is taken literally, never as markup."""
        text = label if isinstance(label, Text) else Text(clean(label))
        return text.split()[0] if text.plain else text

    def rebuild(self, index: TreeIndex, current_id: str, running: set[str]) -> None:
        """Show the whole tree, expanded, with the cursor on the current dialog."""
        self._hits = {}
        self.clear()
        nodes: dict[str, TreeNode[str]] = {}
        self._dialog_nodes = nodes

        def add(parent: TreeNode[str], dialog_id: str) -> None:
            summary = index.summaries[dialog_id]
            label = dialog_label(
                summary.title,
                index.ordinal(dialog_id),
                running=dialog_id in running,
                current=dialog_id == current_id,
                difference=_difference(index, dialog_id),
            )
            self._add_labels(label, dialog_id)
            children = index.children.get(dialog_id, [])
            node = parent.add(label, dialog_id, expand=True, allow_expand=bool(children))
            nodes[dialog_id] = node
            for child in children:
                add(node, child)

        for root in reversed(index.roots):  # newest first
            add(self.root, root)
        target = nodes.get(current_id) or (self.root.children[0] if self.root.children else None)
        if target is not None:
            self.move_cursor(target)  # lines are laid out on the next refresh: move again then
            self.call_after_refresh(self._cursor_to, target)

    def _cursor_to(self, node: TreeNode[str]) -> None:
        if node.tree is self and node.line >= 0:
            self.move_cursor(node)

    def relabel(self, index: TreeIndex, dialog_id: str, *, running: bool, current: bool) -> None:
        """Redraw one dialog's label (running mark, current) without rebuilding the tree."""
        node = self._dialog_nodes.get(dialog_id)
        summary = index.summaries.get(dialog_id)
        if node is None or summary is None or node.tree is not self:
            return
        label = dialog_label(
            summary.title,
            index.ordinal(dialog_id),
            running=running,
            current=current,
            difference=_difference(index, dialog_id),
        )
        node.set_label(self._add_labels(label, dialog_id))

    def _add_labels(self, text: Text, dialog_id: str) -> Text:
        """The labels of the shown family's messages in this dialog, after its title."""
        for name in self.labels.get(dialog_id, ()):
            text.append(f"  #{name}", style="italic")
        return text

    def show_hits(self, hits: list[SearchHit]) -> None:
        self.clear()
        self._dialog_nodes = {}
        self._hits = {}
        for number, hit in enumerate(hits):
            label = Text(clean_line(hit.title) or "New dialog", style="bold")
            if hit.snippet:
                label.append("  " + " ".join(clean(hit.snippet).split()), style="dim")
            key = f"{hit.dialog_id}#{number}"
            self._hits[key] = hit
            self.root.add_leaf(label, key)
        if hits:
            first = self.root.children[0]
            self.move_cursor(first)
            self.call_after_refresh(self._cursor_to, first)

    def node_for(self, dialog_id: str) -> TreeNode[str] | None:
        node = self._dialog_nodes.get(dialog_id)
        if node is not None and node.tree is self:
            return node
        stack = list(self.root.children)
        while stack:
            node = stack.pop()
            if node.data == dialog_id:
                return node
            stack.extend(node.children)
        return None

    def _selected(self) -> tuple[str, int] | None:
        node = self.cursor_node
        if node is None or node.data is None:
            return None
        hit = self._hits.get(node.data)
        if hit is not None:
            return hit.dialog_id, hit.message_index
        return node.data, -1

    @on(Tree.NodeSelected)
    def _open(self, event: Tree.NodeSelected[str]) -> None:
        event.stop()
        selected = self._selected()
        if selected is not None:
            self.post_message(self.OpenDialog(self, *selected))

    def action_delete(self) -> None:
        selected = self._selected()
        if selected is not None:
            self.post_message(self.DeleteRequested(self, selected[0]))
