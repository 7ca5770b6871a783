"""The main screen: dialog tree, message pane, reasoning drawer, composer and status line.

The screen owns the shown dialog and the runs. It is put together from parts, one module per job (see
`main_base`); this module lays the widgets out and holds the keys, the panels and the escape key.

Nothing here talks to the network or the database directly: dialogs, search and persistence go through the
engine's `Center`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Footer

from visindigo.engine import Center, Dialog

from .. import branches
from ..generation import Runs
from ..widgets.composer import Composer
from ..widgets.dialog_tree import Sidebar
from ..widgets.message_pane import MessagePane
from ..widgets.reasoning_drawer import ReasoningDrawer
from ..widgets.status_line import StatusLine
from .main_branching import BranchingPart
from .main_copy import CopyPart
from .main_dialogs import DialogsPart
from .main_modals import ModalsPart
from .main_palette import PalettePart
from .main_resources import ResourcesPart
from .main_runs import RunsPart
from .main_status import StatusPart
from .main_tree import TreePart

if TYPE_CHECKING:
    from textual.timer import Timer


class MainScreen(
    DialogsPart, TreePart, RunsPart, StatusPart, BranchingPart, CopyPart, ModalsPart, PalettePart, ResourcesPart
):
    """Where the user works. Every key below is also a command-palette entry (ctrl+p) and on the help (f1)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Two bindings for esc: the footer shows "esc Cancel" only while there is something to cancel
        # (check_action), and the second does the rest (close a panel, leave an edit, clear a search).
        Binding("escape", "cancel", "Cancel", id="cancel"),
        Binding("escape", "escape", "Close a panel, leave an edit or a search", show=False, id="escape"),
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
        Binding("alt+a", "attach_resource", "Attach an MCP resource (also @ in the composer)", show=False,
                id="attach-resource", priority=True),
        Binding("f7", "rename", "Rename dialog", show=False, id="rename", priority=True),
        Binding("f10,alt+p", "parameters", "Parameters", show=False, id="parameters", priority=True),
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
        Binding("alt+t", "focus_tree", "Go to the dialog tree", show=False, id="focus-tree", priority=True),
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
        self.pending_resources = {}
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
        self._usage_cache: dict[str, tuple[int, tuple[int, int, bool]]] = {}

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

    def _panel_over_messages(self) -> bool:
        """A panel opened over the messages (narrow screens): esc closes it before anything else."""
        return self.has_class("-narrow") and (self.has_class("-sidebar-open") or self.has_class("-drawer-open"))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":  # esc cancels (and the footer offers it) only while the shown dialog runs
            run = self.runs.get(self.dialog.id)
            return run is not None and run.running and not run.cancelling and not self._panel_over_messages()
        return True

    async def action_cancel(self) -> None:
        self.cancel_run(self.dialog.id)  # the status line says "cancelling…" until the run has ended
        self.refresh_bindings()

    async def action_escape(self) -> None:
        if self._panel_over_messages():
            self.remove_class("-sidebar-open", "-drawer-open")
            self.composer.input.focus()
            self.refresh_bindings()
            return
        if self.cancel_run(self.dialog.id):  # the status line says "cancelling…" until the run has ended
            self.refresh_bindings()
            return
        if self.composer.busy:
            self.composer.stop_edit()
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

    def action_toggle_sidebar(self) -> None:
        self._toggle_panel("sidebar", self.sidebar)
        if self.has_class("-sidebar-open"):
            self.call_after_refresh(self.sidebar.dialog_tree.focus)  # once the panel is laid out

    def action_toggle_drawer(self) -> None:
        self._toggle_panel("drawer", self.drawer)

    def action_focus_tree(self) -> None:
        """The dialog tree gets the keys, its panel opened first when it is hidden."""
        if not self.sidebar.display:
            self._toggle_panel("sidebar", self.sidebar)
        self.call_after_refresh(self.sidebar.dialog_tree.focus)  # once the panel is laid out

    def _toggle_panel(self, name: str, widget: Widget) -> None:
        """Flip a panel: on a narrow screen an opened panel takes the whole width until closed again."""
        shown = widget.display
        if self.has_class("-narrow"):  # a temporary overlay: closing it returns to the automatic layout
            self.set_class(not shown, f"-{name}-open")
            self.remove_class(f"-{name}-closed")
            self.refresh_bindings()  # esc closes the panel now, before it cancels
        else:
            self.set_class(not shown, f"-{name}-open")
            self.set_class(shown, f"-{name}-closed")

    def action_focus_composer(self) -> None:
        self.composer.input.focus()

    def action_focus_messages(self) -> None:
        self.pane.focus()
