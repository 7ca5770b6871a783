"""A comparison: one question put to 2–4 models at once, each answer in its own branch dialog.

Nothing new is needed in the data model: every model gets a branch of the dialog asked in (`branch_from_id` =
that dialog, made by `Center.branch_at` exactly as regenerate makes its branch), so the answers are ordinary
alternatives at one point of the tree and stay there whether or not the user picks one.

How a front end uses it:

    choices = [ModelChoice("openai", "gpt-4o"), ModelChoice("local", "qwen3")]
    comparison = Comparison.ask(center, dialog, choices, "Why is the sky blue?")   # a new question
    comparison = Comparison.regenerate(center, dialog, choices, index)             # or: answer message `index` again
    comparison.columns[i].dialog          # the branch of column i (made in column order: ◀ n/m ▶ follows it)
    comparison.label(i)                   # "A".."D" while blind, else the model's name

    async for update in comparison.run(approve=approve):  # all runs at once; ColumnEvent(column, event)
        ...                                # the Center's providers' limits apply: a run over the limit waits
                                           # (WaitingForProvider), then starts (StreamBegan)
    comparison.cancel(i)                   # stop one column; the others go on
    comparison.cancel_all()                # stop every column (esc)
    pick = comparison.pick(i)              # the chosen answer: recorded in the store, models revealed

A front end may instead drive each `columns[i].dialog.run()` itself (one worker per pane): the columns follow
their dialogs' events either way (`Column.status`), and `pick` only needs the runs to be over.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..branching import answer_cut, keep_answering_model
from ..events import (
    Event,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    WaitingForProvider,
)
from ..message import Message, Role
from ..sanitize import clean_line
from .picks import Pick, PickedModel, comparison_tag

if TYPE_CHECKING:
    from ..approval import ApprovalCallback
    from ..center import Center
    from ..dialog import Dialog

__all__ = ["BLIND_LABELS", "Column", "ColumnEvent", "CompareError", "Comparison", "ModelChoice"]

MIN_MODELS = 2
MAX_MODELS = 4
BLIND_LABELS = ("A", "B", "C", "D")


class CompareError(ValueError):
    """A comparison cannot be started or picked from; the message says why, for the user."""


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """One model to ask: a provider of the Center and one of its models ("" lets the provider pick)."""

    provider_id: str
    model_id: str = ""

    @property
    def label(self) -> str:
        return clean_line(self.model_id or f"{self.provider_id} (default model)", 80)

    def to_json(self) -> dict[str, str]:
        return {"provider_id": self.provider_id, "model_id": self.model_id}

    @classmethod
    def from_json(cls, data: object) -> ModelChoice | None:
        if not isinstance(data, dict) or not isinstance(data.get("provider_id"), str) or not data["provider_id"]:
            return None
        model_id = data.get("model_id")
        return cls(data["provider_id"], model_id if isinstance(model_id, str) else "")


@dataclass(eq=False)
class Column:
    """One model's side of the comparison: its branch dialog and how its run goes.

    `status` is "ready" (not run yet), "waiting" (its provider serves as many runs as it allows), "running",
    "finished", "failed" (`error` says why; the other columns go on) or "cancelled".
    """

    choice: ModelChoice
    dialog: Dialog
    status: str = "ready"
    error: str = ""
    #: The provider this column waits for while `status` is "waiting".
    waiting_for: str = ""
    _unsubscribe: Callable[[], None] | None = field(default=None, repr=False)

    def observe(self, event: Event) -> None:
        """Follow the branch's events (subscribed to the dialog, so it works whoever drives the run)."""
        if isinstance(event, WaitingForProvider):
            self.status, self.waiting_for = "waiting", event.provider_name
        elif isinstance(event, StreamBegan):
            self.status, self.waiting_for = "running", ""
        elif isinstance(event, RunFailed):
            from ..run_loop import ALREADY_RUNNING  # loaded by then: a run emitted this

            if event.message != ALREADY_RUNNING:  # a refused second run says nothing about this one
                self.status, self.error = "failed", event.message
        elif isinstance(event, RunFinished):
            self.status = "finished"
        elif isinstance(event, RunCancelled):
            self.status = "cancelled"

    @property
    def done(self) -> bool:
        return self.status in ("finished", "failed", "cancelled")

    def answer(self, cut: int) -> Message | None:
        """The answer this column gave (its last assistant message after the cut), or None without one."""
        for index in range(self.dialog.message_count - 1, cut - 1, -1):
            message = self.dialog.message_at(index)
            if message.role is Role.ASSISTANT and (message.content or message.reasoning):
                return message
        return None


@dataclass(frozen=True, slots=True)
class ColumnEvent:
    """An event of the run of column `column` (its dialog is `dialog_id`)."""

    column: int
    dialog_id: str
    event: Event


class Comparison:
    """Branches made, runs started and cancelled, the pick recorded. Make one with `ask` or `regenerate`."""

    def __init__(
        self,
        center: Center,
        dialog: Dialog,
        choices: Sequence[ModelChoice],
        *,
        cut: int,
        blind: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        """Branch `dialog` after its first `cut` messages once per model (in column order)."""
        choices = list(choices)
        _check_count(choices)
        if dialog.is_running:
            raise CompareError("this dialog is generating an answer; wait for it or cancel it first")
        if blind:  # the columns' order must not tell which model is which
            (rng or random.Random()).shuffle(choices)
        self.center = center
        #: The dialog the question was asked in: every branch's `branch_from_id`.
        self.question_dialog = dialog
        #: How many of its messages every branch keeps; the answers start at this index.
        self.cut = cut
        self.blind = blind
        #: Set by `pick` (or `reveal`): from then on `label` names the models.
        self.revealed = not blind
        self.picked: Pick | None = None
        #: Why the pick is not in the store (it was kept in memory only), or "".
        self.save_problem = ""
        self.started_at = time.time()
        self.columns: list[Column] = []
        for choice in choices:
            branch = center.branch_at(dialog, cut)
            branch.provider_id = choice.provider_id
            branch.model_id = choice.model_id
            column = Column(choice, branch)
            column._unsubscribe = branch.subscribe(column.observe)
            self.columns.append(column)
        self._tasks: dict[int, asyncio.Task[None]] = {}

    # --- making one -------------------------------------------------------------------------------------------

    @classmethod
    def ask(
        cls,
        center: Center,
        dialog: Dialog,
        choices: Sequence[ModelChoice],
        question: str | Message,
        *,
        blind: bool = False,
        rng: random.Random | None = None,
    ) -> Comparison:
        """Ask a new question: it is appended to `dialog` (which records what was asked), and each model
        answers it in a branch holding everything up to and including the question."""
        message = question if isinstance(question, Message) else Message(Role.USER, question)
        if not message.content.strip() and not message.images and not message.attachments:
            raise CompareError("there is no question to send")
        if dialog.is_running:
            raise CompareError("this dialog is generating an answer; wait for it or cancel it first")
        _check_count(choices)
        dialog.append_message(message)
        return cls(center, dialog, choices, cut=dialog.message_count, blind=blind, rng=rng)

    @classmethod
    def regenerate(
        cls,
        center: Center,
        dialog: Dialog,
        choices: Sequence[ModelChoice],
        index: int | None = None,
        *,
        blind: bool = False,
        rng: random.Random | None = None,
    ) -> Comparison:
        """Answer again at message `index` (None: the last answer), cut where regenerate cuts
        (`engine.branching.answer_cut`); the old answer stays in `dialog` as one more alternative."""
        cut = answer_cut(dialog, index)
        comparison = cls(center, dialog, choices, cut=cut, blind=blind, rng=rng)
        keep_answering_model(dialog, cut)
        return comparison

    # --- labels -----------------------------------------------------------------------------------------------

    def model_label(self, column: int) -> str:
        """The column's model; with the provider's name when another column has the same model id."""
        choice = self.columns[column].choice
        same = [c for c in self.columns if c.choice.label == choice.label]
        if len(same) > 1:
            provider = self.center.get_provider(choice.provider_id)
            name = provider.name if provider is not None else choice.provider_id
            return f"{choice.label} · {clean_line(name, 40)}"
        return choice.label

    def label(self, column: int) -> str:
        """What the column is called on screen: A–D until the pick in blind mode, else the model."""
        return self.model_label(column) if self.revealed else BLIND_LABELS[column]

    def reveal(self) -> None:
        """Show the models without picking (the user left, or asked to see them): a pick after it is not blind."""
        self.revealed = True

    # --- running ----------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return any(column.dialog.is_running for column in self.columns) or any(
            not task.done() for task in self._tasks.values()
        )

    async def run(
        self, *, approve: ApprovalCallback | None = None, columns: Iterable[int] | None = None
    ) -> AsyncIterator[ColumnEvent]:
        """Run the columns at once and yield their events as they come, until all these runs are over.

        `columns` says which (by number; to run a failed one again, say); by default those not run yet. A column
        that fails reports `RunFailed` and stops; the others go on. Closing the iterator (or cancelling the task
        that iterates it) cancels its runs still going (not those of another `run`). `approve` is asked about tools
        that need consent; its `ToolCallRequest.dialog_id` says which column asks.
        """
        queue: asyncio.Queue[ColumnEvent | int] = asyncio.Queue()
        chosen = [n for n, c in enumerate(self.columns) if c.status == "ready"] if columns is None else list(columns)
        started: list[asyncio.Task[None]] = []
        for number in chosen:
            column = self.columns[number]
            if not column.dialog.is_running and not self.running_column(number):
                self._tasks[number] = asyncio.ensure_future(self._drive(number, column, approve, queue))
                started.append(self._tasks[number])
        remaining = len(started)
        try:
            while remaining:
                item = await queue.get()
                if isinstance(item, int):
                    remaining -= 1
                else:
                    yield item
        finally:
            # only this call's runs: a retry of one column that ends first must not stop the others' runs
            for task in started:
                task.cancel()
            tasks = [task for task in started if not task.done()]
            if tasks:
                with contextlib.suppress(BaseException):
                    await asyncio.wait(tasks, timeout=10.0)

    async def _drive(
        self,
        number: int,
        column: Column,
        approve: ApprovalCallback | None,
        queue: asyncio.Queue[ColumnEvent | int],
    ) -> None:
        dialog = column.dialog
        try:
            async for event in dialog.run(approve=approve):
                queue.put_nowait(ColumnEvent(number, dialog.id, event))
        except asyncio.CancelledError:
            # the run loop kept the partial answer and told the listeners; tell the iterator too
            queue.put_nowait(ColumnEvent(number, dialog.id, RunCancelled()))
        except Exception as error:  # a bug in one column must not take the others down
            text = f"unexpected error: {type(error).__name__}: {error}"
            column.status, column.error = "failed", text
            queue.put_nowait(ColumnEvent(number, dialog.id, RunFailed(text)))
        finally:
            queue.put_nowait(number)

    def running_column(self, column: int) -> bool:
        """Whether `run` is running that column now."""
        task = self._tasks.get(column)
        return task is not None and not task.done()

    def cancel(self, column: int) -> bool:
        """Stop one column's run (started by `run`); False when it was not running."""
        task = self._tasks.get(column)
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def cancel_all(self) -> int:
        """Stop every column still running; returns how many were stopped."""
        return sum(self.cancel(number) for number in list(self._tasks))

    # --- picking ----------------------------------------------------------------------------------------------

    def pick(self, column: int) -> Pick:
        """Choose column `column`'s answer: recorded (winner, the other answers as losers, blind or not) and the
        models revealed. The chosen branch is `columns[column].dialog`; the other branches stay its
        alternatives. A store that cannot write the record leaves the pick made and `save_problem` saying so.
        Raises `CompareError` while runs go on, for a column without an answer, or a second time.
        """
        if self.picked is not None:
            raise CompareError("an answer of this comparison was chosen already")
        if self.running:
            raise CompareError("the answers are still coming; wait for them or cancel them, then choose")
        if not 0 <= column < len(self.columns):
            raise CompareError(f"there is no column {column + 1}")
        winner = self.columns[column]
        answered = [c for c in self.columns if c.answer(self.cut) is not None]
        if winner not in answered:
            raise CompareError("that column has no answer to choose")
        pick = Pick(
            question_dialog_id=self.question_dialog.id,
            winner=_picked(winner, self.cut),
            losers=tuple(_picked(c, self.cut) for c in answered if c is not winner),
            created_at=time.time(),
            blind=self.blind and not self.revealed,  # shown before the pick (`reveal`): not a blind pick
            tag=comparison_tag(self.question_dialog, self.cut),
        )
        try:
            pick = self.center.record_pick(pick)
        except (sqlite3.Error, OSError) as error:
            # The choice is the user's and opening the picked branch must not depend on the store: a full disk
            # costs the record on disk, not the pick (kept for this session's scores, and the front end says so).
            self.save_problem = (
                f"the pick could not be saved in the dialog store ({clean_line(str(error), 200)}); "
                "it counts in the scores until you quit"
            )
            pick = self.center.record_pick(pick, in_memory=True)
        self.picked = pick
        self.revealed = True
        return pick

    def close(self) -> None:
        """Stop following the branches' events (the branches themselves stay, as every branch does)."""
        for column in self.columns:
            if column._unsubscribe is not None:
                column._unsubscribe()
                column._unsubscribe = None


def _check_count(choices: Sequence[ModelChoice]) -> None:
    if not MIN_MODELS <= len(choices) <= MAX_MODELS:
        raise CompareError(f"a comparison needs {MIN_MODELS} to {MAX_MODELS} models, not {len(choices)}")


def _picked(column: Column, cut: int) -> PickedModel:
    """The model that actually answered (the answer's meta), else the one asked for."""
    answer = column.answer(cut)
    meta = answer.meta if answer is not None else {}
    provider_id = meta.get("provider_id") if isinstance(meta.get("provider_id"), str) else ""
    model_id = meta.get("model_id") if isinstance(meta.get("model_id"), str) else ""
    return PickedModel(
        dialog_id=column.dialog.id,
        provider_id=provider_id or column.choice.provider_id,
        model_id=model_id or column.choice.model_id,
    )
