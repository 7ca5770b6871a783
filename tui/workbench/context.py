"""The context of the shown dialog as plain Python: the meter's figures, compaction into a branch, pins, the
ledger of a summary and what one answer used and cost.

Everything here goes through `engine.context` (the fit check, `compact`, `move_out`, `pin`, `restore`,
`answer_usage`, `answer_cost`); what the screens add is only how it is shown. A compaction is a branch, made as an
edit is: registered with the Center, put in the tree, then shown by the screen. Compaction and the totals are
imported by the first call that needs them (so are the usage and price rules): the meter, which the first frame
shows, needs only the fit check.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from visindigo.engine import Capability, Center, Dialog, Message, NoModelAvailable, Role
from visindigo.engine.context.fit import Fit, check_fit
from visindigo.engine.record import record
from visindigo.engine.sanitize import clean_line
from visindigo.tui.workbench.attachments import Pending, PendingFiles
from visindigo.tui.workbench.refusal import Refused

if TYPE_CHECKING:
    from visindigo.engine.context.totals import Totals
    from visindigo.engine.events import Event

log = logging.getLogger(__name__)

__all__ = ["AMBER_AT", "RED_AT", "ContextWork", "Meter", "count_text", "meter_level"]

#: The meter turns amber at this share of the window, and red at the next.
AMBER_AT = 0.8
RED_AT = 0.95


@record(frozen=True, slots=True)
class Meter:
    """The next request against the model's window: `used` tokens of `window` (0: unknown), `room` kept for the
    answer, `approximate` when some of `used` is an estimate, `status` the fit check's word."""

    used: int
    window: int
    room: int
    approximate: bool
    status: str
    window_source: str = ""

    @property
    def fraction(self) -> float:
        return self.used / self.window if self.window else 0.0


def meter_level(meter: Meter) -> str:
    """ "error" from `RED_AT` of the window (or a request that does not fit), "warning" from `AMBER_AT`, else ""."""
    if not meter.window:
        return ""
    if meter.status == "over" or meter.fraction >= RED_AT:
        return "error"
    if meter.fraction >= AMBER_AT:
        return "warning"
    return ""


def count_text(value: int) -> str:
    """A token count as the status line writes it: 950, 12.3k, 128k."""
    if value >= 100_000:
        return f"{value / 1000:.0f}k"
    if value >= 1_000:
        return f"{value / 1000:.1f}k".replace(".0k", "k")
    return str(value)


def fit_message(fit: Fit) -> str:
    """Why a request will not fit, in one line naming the window and the request's size."""
    about = "about " if fit.approximate else ""
    return (
        f"This request is {about}{fit.used:,} tokens; {fit.model_id or 'the model'}'s window is {fit.window:,} "
        f"({fit.window_source}), with {fit.room:,} kept for the answer."
    )


class Bench(Protocol):
    """What the context actions use of the workbench (named here: the workbench imports this module)."""

    center: Center

    def forward(self, dialog: Dialog, event: Event) -> None: ...

    def refuse_while_running(self, dialog: Dialog) -> None: ...
    def is_registered(self, dialog: Dialog) -> bool: ...
    def refresh_tree(self, select_id: str = "") -> object: ...

    @property
    def pending_files(self) -> PendingFiles: ...
    @property
    def pending_resources(self) -> Pending: ...


class ContextWork:
    """The workbench's context actions. The meter is counted once per change of the dialog (its messages, model,
    parameters), not on every frame the status line draws while a reply streams."""

    def __init__(self, workbench: Bench) -> None:
        self.workbench = workbench
        self._meters: dict[str, tuple[tuple[object, ...], Meter | None]] = {}
        #: Providers whose windows were asked for this session (`learn_window`).
        self._asked: set[str] = set()

    # --- the meter -----------------------------------------------------------------------------------------

    def meter(self, dialog: Dialog) -> Meter | None:
        """The meter's figures for `dialog`'s next request (None without a provider or model to ask)."""
        center = self.workbench.center
        provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
        try:
            model = (
                None
                if provider is None
                else provider.pick_model(dialog.capability_requirement | Capability.TEXT, dialog.model_id)
            )
        except NoModelAvailable:  # none of its models will do
            model = None
        key = (
            dialog.message_count,
            dialog.provider_id,
            dialog.model_id,
            repr(dialog.parameters.get("max_tokens")),
            len(provider.models) if provider is not None else 0,
            model.context_window if model is not None else -1,
        )
        cached = self._meters.get(dialog.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            fit = check_fit(center, dialog)
        except Exception:  # the meter must never stop the screen: it says nothing instead
            log.exception("the fit check of dialog %s failed", dialog.id)
            fit = None
        meter = (
            None
            if fit is None
            else Meter(fit.used, fit.window, fit.room, fit.approximate, fit.status, fit.window_source)
        )
        self._meters[dialog.id] = (key, meter)
        return meter

    def forget(self, dialog_id: str = "") -> None:
        """Count again on the next look (a window was learnt, a message was edited in place)."""
        if dialog_id:
            self._meters.pop(dialog_id, None)
        else:
            self._meters.clear()

    def window_wanted(self, dialog: Dialog) -> bool:
        """Whether the windows of `dialog`'s provider were not asked for yet this session."""
        center = self.workbench.center
        provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
        return provider is not None and provider.id not in self._asked

    async def learn_window(self, dialog: Dialog) -> None:
        """Ask the dialog's server for its models' windows (once a session per provider) and redraw the meter."""
        from visindigo.engine.providers.windows import ensure_windows

        center = self.workbench.center
        provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
        if provider is None or provider.id in self._asked:
            return
        self._asked.add(provider.id)
        try:
            await ensure_windows(provider)
        except Exception:  # the window is for the meter: a server that cannot say leaves it unknown
            log.exception("learning the windows of %s failed", provider.id)
            return
        self.forget()
        from visindigo.engine.events import DialogChanged

        self.workbench.forward(dialog, DialogChanged("context window"))

    def fit_for(self, dialog: Dialog, draft: str) -> Fit | None:
        """The fit of `dialog`'s next request with `draft` as its question (what the pre-send check asks)."""
        try:
            return check_fit(self.workbench.center, dialog, draft)
        except Exception:
            log.exception("the fit check of dialog %s failed", dialog.id)
            return None

    # --- compaction, pins, the ledger ----------------------------------------------------------------------

    async def compact(self, dialog: Dialog, *, moved: bool = False) -> Dialog:
        """A compacted branch of `dialog` (a summary, or with `moved` the oldest turns simply moved out), in the
        tree and not shown yet. Raises `Refused` with the reason when it cannot be made."""
        from visindigo.engine.context.compaction import CompactionError, compact, move_out

        self.workbench.refuse_while_running(dialog)
        if not self.workbench.is_registered(dialog):  # a dialog not saved yet: its branch needs it in the tree
            self.workbench.center.add_dialog(dialog)
        try:
            branch = move_out(self.workbench.center, dialog) if moved else await compact(self.workbench.center, dialog)
        except CompactionError as error:
            raise Refused(str(error)) from None
        self.workbench.refresh_tree(branch.id)
        return branch

    async def auto_compact(
        self, dialog: Dialog, draft: str, models: Sequence[tuple[str, str]] = ()
    ) -> tuple[Dialog | None, str]:
        """Automatic compaction before `draft` is sent (to `models`, else the dialog's own): the compacted branch
        (in the tree, not shown yet) or None, and one line for the user — why it was not made, or "".

        What the user attached for the question (files, resources) moves to the branch with it."""
        from visindigo.engine.context.compaction import CompactionError, compact_if_due

        try:
            branch = await compact_if_due(self.workbench.center, dialog, draft, models=models)
        except CompactionError as error:  # nothing to gain: said once, not retried at every send
            return None, f"Automatic compaction: {clean_line(str(error), 200)}"
        except Exception as error:  # a summary that could not be written: send as it is, and say why
            log.exception("automatic compaction of dialog %s failed", dialog.id)
            return None, f"Automatic compaction failed: {clean_line(str(error), 200)}"
        if branch is None:
            return None, ""
        for attachment in self.workbench.pending_files.take(dialog.id):
            self.workbench.pending_files.add(branch.id, attachment)
        if resources := self.workbench.pending_resources.pop(dialog.id, None):
            self.workbench.pending_resources[branch.id] = resources
        self.workbench.refresh_tree(branch.id)
        return branch, ""

    def toggle_pin(self, dialog: Dialog, index: int) -> bool:
        """Pin the message at `index` (or unpin it); returns whether it is pinned now."""
        from visindigo.engine.context.compaction import is_pinned, pin

        message = dialog.message_at(index)
        pinned = not is_pinned(message)
        pin(dialog, index, pinned)
        from visindigo.engine.events import MessageUpdated

        self.workbench.forward(dialog, MessageUpdated(index))
        return pinned

    def find_replaced(self, branch: Dialog, position: int) -> tuple[Dialog, int] | None:
        from visindigo.engine.context.compaction import find_in_parent

        return find_in_parent(self.workbench.center, branch, position)

    def put_back(self, branch: Dialog, position: int) -> int:
        """Put the replaced message at the parent's `position` back into `branch`; its index there."""
        from visindigo.engine.context.compaction import CompactionError, restore

        self.workbench.refuse_while_running(branch)
        try:
            index = restore(self.workbench.center, branch, position)
        except CompactionError as error:
            raise Refused(str(error)) from None
        self.forget(branch.id)
        return index

    # --- one answer ----------------------------------------------------------------------------------------

    def answer_lines(self, dialog: Dialog, index: int) -> list[str]:
        """What the answer at `index` used and cost, one figure a line (for its details)."""
        from visindigo.engine.context.prices import answer_cost
        from visindigo.engine.context.usage import answer_usage

        message = dialog.message_at(index)
        usage = answer_usage(message)
        if usage is None:
            return ["The server reported no usage for this message."]
        about = "~" if usage.estimated else ""
        lines = [f"tokens in: {about}{usage.input_tokens:,} (the whole prompt, cache included)"]
        if usage.cached_tokens:
            lines.append(f"  read from the cache: {usage.cached_tokens:,}")
        if usage.cache_write_tokens:
            lines.append(f"  written to the cache: {usage.cache_write_tokens:,}")
        lines.append(f"tokens out: {about}{usage.output_tokens:,}")
        if usage.reasoning_tokens:
            lines.append(f"  of them reasoning: {usage.reasoning_tokens:,}")
        if usage.estimated:
            lines.append("~ the server reported no usage: these are the client's estimate")
        center = self.workbench.center
        provider = center.get_provider(usage.provider_id) if usage.provider_id else None
        model = provider.get_model(usage.model_id) if provider is not None and usage.model_id else None
        cost = answer_cost(usage, provider, model)
        shown = "unknown" if cost.dollars is None else f"${cost.dollars:.4f}"
        lines.append(f"cost: {shown} ({cost.source})")
        if usage.model_id:
            lines.append(f"model: {usage.model_id}" + (f" ({usage.provider_id})" if usage.provider_id else ""))
        return lines

    def totals_lines(self, dialog: Dialog) -> list[str]:
        """The totals of `dialog` and of its branch family (its root and every branch from it), each answer once:
        a branch holds copies of its parent's answers, which the family's total does not count again."""
        from visindigo.engine.context.totals import dialog_totals, family_totals

        center = self.workbench.center
        own = dialog_totals(center, dialog)
        lines = [f"this dialog: {totals_text(own)}"]
        family = family_totals(center, dialog)
        if family.dialogs > 1:
            lines.append(f"its family ({family.dialogs} dialogs): {totals_text(family)}")
        else:
            lines.append("its family: this dialog alone (no branches)")
        return lines


def totals_text(totals: Totals) -> str:
    """Answers' totals in one line: `3 answers · in 1,200 (cache 1,000) · out 30 · $0.0006`."""
    if not totals.answers:
        return "no answers with usage yet"
    about = "~" if totals.estimated else ""
    cache = f" (cache {totals.cached_tokens:,})" if totals.cached_tokens else ""
    word = "answer" if totals.answers == 1 else "answers"
    return (
        f"{totals.answers} {word} · in {about}{totals.input_tokens:,}{cache} · out {about}{totals.output_tokens:,}"
        f" · {totals.money()}"
    )


def context_marks(message: Message) -> list[str]:
    """The marks a message's meta line shows: pinned, or a summary with how many messages it replaced."""
    from visindigo.engine.context.compaction import is_pinned, ledger_of

    marks = []
    if is_pinned(message):
        marks.append("pinned")
    ledger = ledger_of(message)
    if ledger is not None and message.role is not Role.ASSISTANT:
        replaced = len(ledger.get("replaced", []))
        word = "moved out" if ledger.get("moved_out") else "replaced by this summary"
        marks.append(f"{replaced} earlier messages {word} · l shows them")
    return marks
