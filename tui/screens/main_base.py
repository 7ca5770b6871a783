"""The main screen's common ground: the state its parts share, and the helpers they all use.

`MainScreen` (`main.py`) is put together from parts, one module per job: showing dialogs (`main_dialogs`), the
tree and search (`main_tree`), runs (`main_runs`), the status line (`main_status`), branches
(`main_branching`), copying and links (`main_copy`), the other screens it opens (`main_modals`) and the command
palette (`main_palette`). Each part subclasses `MainBase`, so Textual's handlers (`@on`, `on_*`), workers and
actions work in it as in any screen. `MainScreen.__init__` sets the attributes declared here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.worker import Worker

    from visindigo.engine import Center, Dialog, Message

    from ..app import VisindigoApp
    from ..branches import TreeIndex
    from ..generation import Runs
    from ..widgets.composer import Composer
    from ..widgets.dialog_tree import Sidebar
    from ..widgets.message_pane import MessagePane
    from ..widgets.reasoning_drawer import ReasoningDrawer
    from ..widgets.status_line import StatusLine


def title_for(text: str) -> str:
    """A new dialog's title, from its first message (the store's rule)."""
    from visindigo.engine.storage.rows import make_title

    return make_title(text)


class MainBase(Screen[None]):
    """What every part of the main screen can rely on."""

    center: Center
    #: The dialog on screen (its runs, and those of other dialogs, go on in workers).
    dialog: Dialog
    runs: Runs
    stream_fps: float
    sidebar: Sidebar
    pane: MessagePane
    drawer: ReasoningDrawer
    composer: Composer
    status_line: StatusLine
    #: Draws what streamed in, at `stream_fps`; paused while nothing streams.
    _frame: Timer | None
    #: Refreshes the status line (tokens per second) once a second during a run.
    _ticker: Timer | None
    _tree_index: TreeIndex
    #: Where the shown dialog parts from the rest of its family: message index -> the dialogs to step through.
    _alternatives: dict[int, list[Dialog]]
    _usage_cache: dict[str, tuple[int, tuple[int, int, bool]]]

    @property
    def visindigo(self) -> VisindigoApp:
        from ..app import VisindigoApp

        app = self.app
        assert isinstance(app, VisindigoApp)
        return app

    def _is_registered(self, dialog: Dialog) -> bool:
        return self.center.has_dialog(dialog.id)

    def _shown(self, dialog_id: str) -> bool:
        return dialog_id == self.dialog.id

    def _refuse_while_running(self) -> bool:
        if self.runs.is_running(self.dialog.id):
            self.notify("This dialog is still answering: esc cancels it, or wait.", severity="warning")
            return True
        return False

    if TYPE_CHECKING:  # provided by the parts; named here so each part reads on its own

        def refresh_tree(self, select_id: str = "") -> None: ...
        def _mark_tree(self, *dialog_ids: str) -> None: ...
        def _run_search(self, query: str) -> None: ...
        def _compute_alternatives(self) -> dict[int, tuple[int, int]]: ...
        async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None: ...
        async def open_dialog_id(self, dialog_id: str, *, focus_index: int | None = None) -> None: ...
        def _show_reasoning_of_latest(self) -> None: ...
        def _drawer_title(self, message: Message, index: int) -> str: ...
        def _resume_frames(self) -> None: ...
        def _refresh_status(self) -> None: ...
        async def send(self, text: str | Message) -> None: ...
        def attach_pending(self, message: Message) -> Message: ...
        def start_run(self, dialog: Dialog) -> None: ...
        def cancel_run(self, dialog_id: str) -> bool: ...
        def start_edit(self, index: int) -> None: ...
        async def edit_message(self, index: int, text: str) -> None: ...
        def copy_text(self, text: str, what: str) -> None: ...
        def delete_dialog(self, dialog_id: str) -> Worker[None]: ...
