"""The comparison screen: one question answered by 2-4 models side by side, and the pick of one answer.

Each column is a branch dialog of the question's dialog, shown in its own message pane and run in the main
screen's workbench (so a run goes on, and its pane on the main screen streams it, after this screen is left).
At 120 columns and more the columns stand side by side; below that they become tabs, one shown at a time, and
tab cycles them. The reasoning drawer follows the focused column. A tool call is asked for in the column that
wants it (the question names the column), one question at a time.

Picking (p, or 1-4) records the choice and opens the picked branch on the main screen, where the others are
its alternatives (◀ n/m ▶). In blind mode the columns stand in a random order labelled A-D, the models hidden,
until the pick reveals them. Leaving without a pick (esc once nothing runs) keeps every answer as a branch.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.events import DescendantFocus
from textual.screen import Screen
from textual.widgets import Footer, Static

from visindigo.engine import Dialog, ModelInfo

from ..widgets.compare_column import CompareColumn
from ..widgets.compare_header import CompareTabs
from ..widgets.message_pane import MessagePane
from ..widgets.reasoning_drawer import ReasoningDrawer
from ..workbench import Workbench

if TYPE_CHECKING:
    from visindigo.engine.approval import Approval, ToolCallRequest

BLIND_LABELS = "ABCD"
#: Below this many terminal columns the columns become tabs.
SIDE_BY_SIDE = 120


@dataclass(frozen=True, slots=True)
class CompareEntry:
    """One model of the comparison: its branch dialog, its name as shown, and what the config says of it."""

    dialog: Dialog
    model: str
    model_info: ModelInfo | None = None


@dataclass(frozen=True, slots=True)
class ComparePick:
    """The user's choice: the `winner` branch, the `losers`, and whether the models were hidden until then."""

    winner: Dialog
    losers: list[Dialog]
    blind: bool


@dataclass(frozen=True, slots=True)
class CompareOutcome:
    """What the screen was left with: the pick (None: left without one) and the branches in creation order."""

    pick: ComparePick | None
    branches: list[Dialog]


PickRecorder = Callable[[ComparePick], None]


class CompareScreen(Screen[CompareOutcome]):
    """The columns of a comparison. Every key is on the help (f1) and the footer shows the main ones."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pick", "Pick this answer", id="compare-pick"),
        *[Binding(str(n), f"pick({n})", f"Pick answer {n}", show=False, priority=True) for n in range(1, 5)],
        Binding("tab", "cycle(1)", "Next column", id="compare-next"),
        Binding("shift+tab", "cycle(-1)", "Previous column", show=False),
        Binding("x", "cancel_column", "Cancel column", id="compare-cancel-one"),
        Binding("escape", "escape", "Cancel all / leave", id="compare-cancel-all"),
        Binding("b", "toggle_blind", "Blind", id="compare-blind"),
        Binding("ctrl+r", "retry", "Retry column", show=False, id="compare-retry"),
        Binding("enter", "open_pick(True)", "Open the pick", show=False, priority=True),
        Binding("f9,ctrl+g", "toggle_drawer", "Reasoning", show=False, priority=True),
    ]

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-tabs"), (SIDE_BY_SIDE, "-side")]

    DEFAULT_CSS = """
    CompareScreen #compare-body { height: 1fr; }
    CompareScreen #compare-area { width: 1fr; height: 1fr; }
    CompareScreen #compare-columns { height: 1fr; }
    CompareScreen #compare-tabs { display: none; }
    CompareScreen.-tabs #compare-tabs { display: block; }
    CompareScreen.-tabs CompareColumn { display: none; border-right: none; }
    CompareScreen.-tabs CompareColumn.-active { display: block; }
    CompareScreen #compare-drawer { display: none; }
    CompareScreen.-drawer-open #compare-drawer { display: block; }
    CompareScreen.-tabs.-drawer-open #compare-drawer { width: 50%; }
    CompareScreen #compare-hint { height: 1; padding: 0 1; color: $text-muted; background: $panel; }
    """

    def __init__(
        self,
        workbench: Workbench,
        entries: list[CompareEntry],
        *,
        blind: bool = False,
        record_pick: PickRecorder | None = None,
        fps: float = 4.0,
        rng: random.Random | None = None,
        start_runs: bool = True,
    ) -> None:
        super().__init__()
        if not 2 <= len(entries) <= 4:
            raise ValueError("a comparison has 2 to 4 models")
        self.workbench = workbench
        self.entries = list(entries)
        self.record_pick = record_pick
        self.start_runs = start_runs
        self.blind = blind
        #: Whether the models were hidden from the start: only then is a pick recorded as blind.
        self._blind_from_start = blind
        self._rng = rng or random.Random()
        self.columns = [
            CompareColumn(workbench, entry.dialog, entry.model, model_info=entry.model_info, fps=fps)
            for entry in entries
        ]
        self.order: list[CompareColumn] = self._ordered()
        self.active = 0
        self.picked: ComparePick | None = None
        self.drawer = ReasoningDrawer(id="compare-drawer")
        self.tabs = CompareTabs(id="compare-tabs")
        self.hint = Static(Content(""), id="compare-hint")
        self._asking = asyncio.Lock()

    def _ordered(self) -> list[CompareColumn]:
        """Columns in creation order, or shuffled when blind (the position must not tell the model)."""
        order = list(self.columns)
        if self.blind:
            self._rng.shuffle(order)
        return order

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-body"):
            with Vertical(id="compare-area"):
                yield self.tabs
                with Horizontal(id="compare-columns"):
                    yield from self.order
            yield self.drawer
        yield self.hint
        yield Footer(compact=True, show_command_palette=False)

    async def on_mount(self) -> None:
        self._relabel()
        if self.start_runs:
            for column in self.columns:  # in creation order: a provider that answers one at a time takes them so
                self.workbench.start_run(column.dialog, approve=self.approve)
        self.activate(0)
        self.set_interval(1.0, self._refresh_chrome, name="compare-chrome")

    # --- columns -------------------------------------------------------------------------------------------------

    @property
    def active_column(self) -> CompareColumn:
        return self.order[self.active]

    def _relabel(self) -> None:
        for position, column in enumerate(self.order):
            column.set_label(BLIND_LABELS[position] if self.blind else str(position + 1), blind=self.blind)
        self._refresh_chrome()

    def activate(self, position: int, *, focus: bool = True) -> None:
        """Make the column at `position` the focused one (in tabs, the one shown); the drawer follows it."""
        self.active = position % len(self.order)
        for index, column in enumerate(self.order):
            column.set_active(index == self.active)
        column = self.active_column
        if focus and self.focused is not column.pane:
            column.pane.focus()
        run = self.workbench.runs.get(column.dialog.id)
        if run is not None and run.streaming:
            self.drawer.follow_run(run)
        else:
            self._drawer_latest(column)
        self._refresh_chrome()

    def _refresh_chrome(self) -> None:
        """The tab strip and the hint line: what runs, what the keys do now."""
        self.tabs.show([column.figures() for column in self.order])
        running = sum(column.running for column in self.columns)
        if self.picked is not None:
            text = f"You picked {self._name_of(self.picked.winner)}. enter opens it on the main screen."
        elif running:
            text = f"{running} of {len(self.columns)} answering · x cancels this column · esc cancels all"
        else:
            text = "1-4 or p picks the answer that continues · esc leaves and keeps every answer as a branch"
        self.hint.update(Content(text))

    def _name_of(self, dialog: Dialog) -> str:
        column = self._column_of(dialog.id)
        return f"{column.label}: {column.model}" if column is not None else "an answer"

    def _column_of(self, dialog_id: str) -> CompareColumn | None:
        return next((column for column in self.columns if column.dialog.id == dialog_id), None)

    @on(DescendantFocus)
    def _focus_moved(self, event: DescendantFocus) -> None:
        for position, column in enumerate(self.order):
            if event.widget is column.pane and position != self.active:
                self.activate(position, focus=False)

    @on(MessagePane.CursorMoved)
    @on(MessagePane.StreamReport)
    def _pane_reported(self, event: MessagePane.StreamReport | MessagePane.CursorMoved) -> None:
        column = self.active_column
        if event.pane is column.pane:
            self._drawer_follow(column, event)
        if isinstance(event, MessagePane.RunDone):
            self._refresh_chrome()

    def _drawer_follow(self, column: CompareColumn, event: MessagePane.StreamReport | MessagePane.CursorMoved) -> None:
        """The drawer shows the reasoning of the column's answer, live while it streams, unless the cursor is on
        one of the answer's messages (then that message's). The pane takes the focus with its cursor on the
        question, which on the main screen would mean "show the question's": here it means "the answer"."""
        cursor = column.pane.cursor
        on_answer = cursor is not None and cursor.index is not None and cursor.index >= column.start_index
        run = self.workbench.runs.get(column.dialog.id)
        if on_answer or isinstance(event, MessagePane.Frame):
            self.drawer.follow_pane(column.pane, event)
        elif run is not None and run.streaming:
            if self.drawer.source != "stream" or isinstance(event, MessagePane.StreamStarted):
                self.drawer.follow_run(run)
        elif not isinstance(event, MessagePane.StreamStarted):
            self._drawer_latest(column)

    def _drawer_latest(self, column: CompareColumn) -> None:
        """The reasoning of the column's answer (not of an earlier answer of the context they share)."""
        if column.dialog.message_count > column.start_index:
            self.drawer.show_latest(column.dialog)
        else:
            self.drawer.show("", "reasoning")

    # --- tools ----------------------------------------------------------------------------------------------------

    async def approve(self, request: ToolCallRequest) -> Approval:
        """Ask in the column that wants the tool: it comes to the front and its header says it asks; one column
        asks at a time (the others wait in line)."""
        from .approval import ApprovalScreen
        from .main_modals import approve as approve_anywhere

        column = self._column_of(request.dialog_id)
        if column is None or not self.is_attached:
            return await approve_anywhere(self.app, request)
        async with self._asking:
            column.set_asking(True)
            if self.is_current:
                self.activate(self.order.index(column))
            screen = ApprovalScreen(request, title=f"Column {column.label}: allow this tool call?")
            try:
                return await self.app.push_screen_wait(screen)
            except BaseException:
                if screen.is_attached and self.app.screen is screen:
                    self.app.pop_screen()
                raise
            finally:
                column.set_asking(False)

    # --- keys -----------------------------------------------------------------------------------------------------

    def action_cycle(self, step: int) -> None:
        self.activate(self.active + step)

    def action_cancel_column(self) -> None:
        column = self.active_column
        if not self.workbench.cancel_run(column.dialog.id):
            self.notify(f"Column {column.label} is not answering.")

    def cancel_all(self) -> int:
        return sum(self.workbench.cancel_run(column.dialog.id) for column in self.columns)

    def action_escape(self) -> None:
        if self.picked is not None:
            self.action_open_pick()
        elif not self.cancel_all():
            self.dismiss(CompareOutcome(None, [column.dialog for column in self.columns]))

    def action_pick(self, number: int = 0) -> None:
        """Pick the column at position `number` (1-4), or the focused one (0)."""
        if self.picked is not None:
            self.action_open_pick()
            return
        if number > len(self.order):
            self.notify(f"There is no column {number}.", severity="warning")
            return
        column = self.order[number - 1] if number else self.active_column
        if column.outcome == "failed":
            self.notify(f"Column {column.label} failed; pick another, or esc leaves keeping all.", severity="warning")
            return
        losers = [other.dialog for other in self.columns if other is not column]
        pick = ComparePick(column.dialog, losers, blind=self.blind and self._blind_from_start)
        self.picked = pick
        if self.record_pick is not None:
            self.record_pick(pick)
        column.picked = True
        if self.blind:  # the reveal: every header names its model (under the same letter), and the pick is marked
            self.blind = False
            for other in self.order:
                other.set_label(other.label, blind=False)
            self.activate(self.order.index(column))
            return
        self.action_open_pick()

    def action_open_pick(self, by_enter: bool = False) -> None:
        if self.picked is None:
            if by_enter:  # before a pick, enter is the column's own (it expands a tool call)
                raise SkipAction()
            self.notify("Pick an answer first: p, or 1-4.")
            return
        self.dismiss(CompareOutcome(self.picked, [column.dialog for column in self.columns]))

    def action_toggle_blind(self) -> None:
        """Hide the models (a new random order, labelled A-D) or show them; a pick counts as blind only when the
        models were hidden from the start."""
        if self.picked is not None:
            return
        self.blind = not self.blind
        if self.blind:
            self.order = self._ordered()
            container = self.query_one("#compare-columns", Horizontal)
            for column in self.order:
                container.move_child(column, after=len(container.children) - 1)
        else:
            self._blind_from_start = False
        self._relabel()
        self.activate(self.order.index(self.active_column) if self.active_column in self.order else 0)

    def action_retry(self) -> None:
        """Run the focused column again when its run failed or was cancelled before any answer."""
        column = self.active_column
        dialog = column.dialog
        if column.running:
            self.notify(f"Column {column.label} is still answering.")
            return
        if dialog.message_count > column.start_index:
            self.notify(f"Column {column.label} has its answer; leave it, or pick another.")
            return
        self.workbench.start_run(dialog, approve=self.approve)
        self._refresh_chrome()

    def action_toggle_drawer(self) -> None:
        self.toggle_class("-drawer-open")
