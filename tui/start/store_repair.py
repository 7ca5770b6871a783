"""The screen shown while a damaged store is repaired (`tui.store_check` pushes it): the stage and a progress bar.

A module of its own so that the app, whose start-up check lives in `store_check`, does not load it (nor the
progress bar) at every start: most starts never show it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from visindigo.tui.common.modal import ModalFrame


class StoreRepairScreen(ModalFrame[None]):
    """The stage of the repair and a progress bar, until the salvage is done."""

    DEFAULT_CSS = """
    StoreRepairScreen > .frame {
        width: 70;
    }
    StoreRepairScreen ProgressBar {
        margin: 1 0 0 0;
    }
    """

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = "Repairing the dialog store"
            yield Static(
                "The dialog store is damaged. Everything that can still be read is being copied into a new "
                "store; the damaged file is kept.",
                id="why",
            )
            yield Static("", id="stage")
            yield ProgressBar(total=None, show_eta=False, id="bar")

    def show(self, stage: str, done: int, total: int) -> None:
        about = "about " if stage.startswith("copying") else ""
        self.query_one("#stage", Static).update(f"{stage.capitalize()}: {done:,} of {about}{total:,}")
        self.query_one("#bar", ProgressBar).update(total=max(total, done, 1), progress=done)

    def action_cancel(self) -> None:
        """Escape does not close it: the repair cannot be stopped half-way."""
