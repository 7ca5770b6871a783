"""One column of a comparison: a header with the model's figures over a message pane on its branch.

The pane is an ordinary `MessagePane` bound to the column's branch dialog: it streams that dialog's run at its
own frame rate and knows nothing of the other columns. The column adds what a comparison needs on top: a label
(1-4, or A-D when blind), the model's name (hidden while blind), and the header's figures, redrawn when the
pane draws a frame, when the run's usage or state changes, and once a second while it runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer

from visindigo.engine import Dialog, ModelInfo
from visindigo.engine.context.usage import tokens_in
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.compare.header import HIDDEN, ColumnFigures, CompareHeader, column_figures, price_of
from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench import events as news
from visindigo.tui.workbench.status import changes_the_figures


class ColumnPane(MessagePane):
    """A message pane that stays on its column's branch: stepping to an alternative, editing or regenerating
    would take the column away from the answer it compares, so those wait until the pick."""

    def _after_pick(self) -> None:
        self.notify("Pick an answer first (p or 1-4); then edit, regenerate or step through the alternatives "
                    "on the main screen.", severity="warning")  # fmt: skip

    async def step_alternative(self, index: int, step: int) -> None:
        self._after_pick()

    def action_edit(self) -> None:
        self._after_pick()

    def action_regenerate(self) -> None:
        self._after_pick()


class CompareColumn(Vertical):
    """A branch of the comparison, its header and its pane."""

    DEFAULT_CSS = """
    CompareColumn {
        width: 1fr;
        height: 1fr;
        border-right: vkey $panel;
    }
    CompareColumn.-last {
        border-right: none;
    }
    CompareColumn > MessagePane {
        height: 1fr;
    }
    """

    def __init__(
        self,
        workbench: Workbench,
        dialog: Dialog,
        model: str,
        *,
        model_info: ModelInfo | None = None,
        fps: float = 4.0,
        waiting: Callable[[], str] = lambda: "",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.workbench = workbench
        self.dialog = dialog
        #: The model's name as the header shows it once revealed ("model · provider").
        self.model = model
        self.label = ""
        self.blind = False
        self.picked = False
        self.active = False
        #: A tool call of this column waits for the user's answer.
        self.asking = False
        self._price = price_of(model_info)
        #: The provider the column's run waits for (its limit of runs at once), or "".
        self._waiting = waiting
        self._first_token = 0.0
        #: Messages the branch had before its run: the answer's usage is counted from here.
        self.start_index = dialog.message_count
        self.pane = ColumnPane(workbench, dialog, fps=fps)
        self.header = CompareHeader(self.figures())
        self._ticker: Timer | None = None
        self._unsubscribe: Callable[[], None] = lambda: None

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.pane

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self.refresh_header, pause=True, name="column-ticker")
        self._unsubscribe = listen(self, self.workbench, news.RunStarted, news.RunEnded, news.EngineEvent)
        if self.workbench.runs.is_running(self.dialog.id):
            self._ticker.resume()

    def on_unmount(self) -> None:
        self._unsubscribe()

    # --- what it shows -----------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.workbench.runs.is_running(self.dialog.id)

    @property
    def outcome(self) -> str:
        """How the column's last run ended ("finished", "failed", "cancelled"; "" while it runs)."""
        run = self.workbench.runs.get(self.dialog.id)
        return "" if run is None or run.running else run.outcome

    @property
    def error(self) -> str:
        run = self.workbench.runs.get(self.dialog.id)
        return run.error if run is not None else ""

    def figures(self) -> ColumnFigures:
        run = self.workbench.runs.get(self.dialog.id)
        if run is not None and not self._first_token and run.first_token_at and run.round == 1:
            self._first_token = max(0.0, run.first_token_at - run.round_started_at)
        return column_figures(
            self.label,
            HIDDEN if self.blind else self.model,
            run,
            first_token=self._first_token,
            usage=self.answer_usage(),
            price=None if self.blind else self._price,  # a model's price would tell it apart while hidden
            asking=self.asking,
            waiting_for=self._waiting(),
            picked=self.picked,
            active=self.active,
            now=time.monotonic(),
        )

    def answer_usage(self) -> tuple[int, int]:
        """Tokens in and out the comparison's answer reported (tool rounds included; the shared context's not)."""
        input_tokens = output_tokens = 0
        for index in range(self.start_index, self.dialog.message_count):
            usage = self.dialog.message_at(index).meta.get("usage")
            if isinstance(usage, dict):
                input_tokens += tokens_in(usage)  # the whole prompt, cache reads and writes included, on every wire
                output_tokens += int(usage.get("output_tokens", 0) or 0)
        return input_tokens, output_tokens

    def refresh_header(self) -> None:
        self.header.show(self.figures())

    def set_label(self, label: str, *, blind: bool) -> None:
        self.label = label
        self.blind = blind
        self.refresh_header()

    def set_active(self, active: bool) -> None:
        self.active = active
        self.set_class(active, "-active")
        self.refresh_header()

    def set_asking(self, asking: bool) -> None:
        self.asking = asking
        self.refresh_header()

    # --- following the run -------------------------------------------------------------------------------------

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        event = message.event
        if not isinstance(event, news.RunEvent) or event.dialog_id != self.dialog.id or not changes_the_figures(event):
            return
        if self._ticker is not None:
            self._ticker.resume() if self.running else self._ticker.pause()
        self.refresh_header()

    def on_message_pane_frame(self, event: MessagePane.Frame) -> None:
        self.refresh_header()  # not stopped: the screen's drawer follows the frames of the focused column

    def on_message_pane_run_done(self, event: MessagePane.RunDone) -> None:
        self.refresh_header()
