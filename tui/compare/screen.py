"""The comparison screen: one question answered by 2-4 models side by side, and the pick of one answer.

Each column is a branch of an `engine.compare.Comparison` (which made the branches, records the pick and follows
each branch's state, such as waiting for its provider), shown in its own message pane and run in the main
screen's workbench, one run per column (so a run goes on, and the main screen streams it, after this screen is
left). The providers' `max_concurrent_runs` apply in the engine's run loop, whoever drives the run.
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
from visindigo.engine.compare import BLIND_LABELS, CompareError, Comparison, Pick
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.chat.reasoning_drawer import ReasoningDrawer
from visindigo.tui.compare.column import CompareColumn
from visindigo.tui.compare.header import CompareTabs
from visindigo.tui.workbench import Workbench

if TYPE_CHECKING:
    from collections.abc import Callable

    from visindigo.engine.approval import Approval, ToolCallRequest
    from visindigo.engine.compare.comparison import Column

#: Below this many terminal columns the columns become tabs.
SIDE_BY_SIDE = 120


@dataclass(frozen=True, slots=True)
class CompareOutcome:
    """What the screen was left with: the pick (None: left without one), the branch to open on the main screen
    (the picked one, else the first), and every branch in creation order."""

    pick: Pick | None
    winner: Dialog | None
    branches: list[Dialog]


def model_info(comparison: Comparison, column: int) -> ModelInfo | None:
    """What the config says of the column's model (its prices, for the header's cost)."""
    choice = comparison.columns[column].choice
    provider = comparison.center.get_provider(choice.provider_id)
    if provider is None:
        return None
    return next((model for model in provider.models if model.id == choice.model_id), None)



def _waiting_of(column: Column) -> Callable[[], str]:
    """What the column's header says it waits for ("waiting for llama.cpp…"), read when the header redraws."""
    return lambda: column.waiting_for if column.status == "waiting" else ""


class CompareScreen(Screen[CompareOutcome]):
    """The columns of a comparison. Every key is on the help (f1) and the footer shows the main ones."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # p reaches the screen because a column's pane switches its own p / i / l off (`context_keys`, its
        # check_action): one mechanism, so p picks here as the footer says. The digits need priority: the pane's
        # 1-9 copy its code blocks, and here 1-4 pick.
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

    HORIZONTAL_BREAKPOINTS = [(0, "-tabs"), (SIDE_BY_SIDE, "-side")]

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
        comparison: Comparison,
        *,
        fps: float = 4.0,
        rng: random.Random | None = None,
        start_runs: bool = True,
    ) -> None:
        super().__init__()
        self.workbench = workbench
        self.comparison = comparison
        self.start_runs = start_runs
        #: Whether the models are hidden now (the comparison says whether a pick counts as blind).
        self.blind = comparison.blind and not comparison.revealed
        #: The blind toggle as the user left it (the pick's reveal does not turn it off): kept for the next one.
        self.blind_mode = self.blind
        self._rng = rng or random.Random()
        self.columns = [
            CompareColumn(
                workbench, column.dialog, comparison.model_label(number), model_info=model_info(comparison, number),
                fps=fps, waiting=_waiting_of(column),
            )
            for number, column in enumerate(comparison.columns)
        ]  # fmt: skip
        #: Left to right: the comparison's order (which it shuffled when blind).
        self.order: list[CompareColumn] = list(self.columns)
        self.active = 0
        self.picked: Pick | None = None
        self.winner: CompareColumn | None = None
        self.drawer = ReasoningDrawer(id="compare-drawer")
        self.tabs = CompareTabs(id="compare-tabs")
        self.hint = Static(Content(""), id="compare-hint")
        self._hint_text = ""
        self._asking = asyncio.Lock()

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-body"):
            with Vertical(id="compare-area"):
                yield self.tabs
                with Horizontal(id="compare-columns"):
                    yield from self.order
            yield self.drawer
        yield self.hint
        yield Footer(compact=True, show_command_palette=False)

    def on_unmount(self) -> None:
        self.comparison.close()

    async def on_mount(self) -> None:
        self._relabel()
        self.activate(0)
        self.set_interval(1.0, self._refresh_chrome, name="compare-chrome")
        if self.start_runs:
            # After the screen's first refresh: a stream that opens in a pane before then finds its new view's
            # Markdown not mounted yet (seen on a second comparison; the app stopped on NoMatches).
            self.call_after_refresh(self._start_runs)

    def _start_runs(self) -> None:
        for column in self.columns:  # in creation order: a provider that answers one at a time takes them so
            if not column.running:
                self.workbench.start_run(column.dialog, approve=self.approve)
        self._refresh_chrome()  # "n of m answering" at once, not at the next second's refresh

    # --- columns -------------------------------------------------------------------------------------------------

    @property
    def active_column(self) -> CompareColumn:
        return self.order[self.active]

    def _relabel(self) -> None:
        for position, column in enumerate(self.order):
            column.set_label(BLIND_LABELS[position] if self.blind else str(position + 1), blind=self.blind)
            # the last column by order, not by `:last-of-type`, which Textual works out from the columns shown: in
            # tabs (below 120 columns) only one is, and after widening again the separators stood in wrong places
            column.set_class(position == len(self.order) - 1, "-last")
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
        if self.winner is not None:
            text = f"You picked {self.winner.label}: {self.winner.model}. enter opens it on the main screen."
        elif running:
            text = f"{running} of {len(self.columns)} answering · x cancels this column · esc cancels all"
        else:
            text = "1-4 or p picks the answer that continues · esc leaves and keeps every answer as a branch"
        if text != self._hint_text:  # Static.update lays the screen out again: only when the words change
            self._hint_text = text
            self.hint.update(Content(text))

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
        from visindigo.tui.common.approval import ApprovalScreen
        from visindigo.tui.common.approval import approve as approve_anywhere

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
        if self.winner is not None:
            self.action_open_pick()
        elif not self.cancel_all():
            self.dismiss(self._outcome())

    def _outcome(self) -> CompareOutcome:
        branches = [column.dialog for column in self.columns]
        winner = self.winner.dialog if self.winner is not None else None
        return CompareOutcome(self.picked, winner, branches)

    def action_pick(self, number: int = 0) -> None:
        """Pick the column at position `number` (1-4), or the focused one (0): recorded, and the models revealed."""
        if self.winner is not None:
            self.action_open_pick()
            return
        if number > len(self.order):
            self.notify(f"There is no column {number}.", severity="warning")
            return
        column = self.order[number - 1] if number else self.active_column
        try:
            self.picked = self.comparison.pick(self.columns.index(column))
        except CompareError as error:
            self.notify(f"Column {column.label}: {error}.", severity="warning", markup=False)
            return
        if self.comparison.save_problem:  # the pick stands (and opens); only its record on disk is missing
            self.notify(f"Column {column.label}: {self.comparison.save_problem}.", severity="warning", markup=False)
        self.winner = column
        column.picked = True
        if self.blind:  # the reveal: every header names its model (under the same letter), and the pick is marked
            self.blind = False
            for other in self.order:
                other.set_label(other.label, blind=False)
            self.activate(self.order.index(column))
            return
        self.action_open_pick()

    def action_open_pick(self, by_enter: bool = False) -> None:
        if self.winner is None:
            if by_enter:  # before a pick, enter is the column's own (it expands a tool call)
                raise SkipAction()
            self.notify("Pick an answer first: p, or 1-4.")
            return
        self.dismiss(self._outcome())

    def action_toggle_blind(self) -> None:
        """Hide the models (in a new random order, labelled A-D) or show them. Once shown, a pick no longer
        counts as blind: hiding them again only keeps them out of sight."""
        if self.winner is not None:
            return
        focused = self.active_column
        self.blind = self.blind_mode = not self.blind
        if self.blind:
            self.comparison.revealed = False
            self._rng.shuffle(self.order)
            container = self.query_one("#compare-columns", Horizontal)
            for column in self.order:
                if column is not container.children[-1]:
                    container.move_child(column, after=container.children[-1])
        else:
            self.comparison.reveal()
            self.comparison.blind = False
        self._relabel()
        self.activate(self.order.index(focused))

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
