"""The status line's figures for a dialog: provider · model · capability marks · parameters · tokens in/out ·
tokens per second · what the run is doing. Computed here, drawn by `widgets.status_line`."""

from __future__ import annotations

import time

from visindigo.engine import Capability, Center, Dialog, Message, NoModelAvailable, Provider
from visindigo.engine.parameters import summary as parameters_summary
from visindigo.engine.record import record
from visindigo.tui.workbench.context import Meter
from visindigo.tui.workbench.events import EngineEvent, RunEnded, RunEvent, RunStarted
from visindigo.tui.workbench.runs import RunState


@record(frozen=True, slots=True)
class StatusInfo:
    provider: str = ""
    model: str = ""
    marks: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_per_second: float = 0.0
    state: str = ""
    #: The speed is the last answer's final figure (no answer is streaming now).
    speed_is_final: bool = False
    #: Why a capability mark the dialog needs is missing ("" when none is).
    note: str = ""
    #: Some token figure is the client's estimate (the server reported none): shown with a `~`.
    estimated: bool = False
    #: The dialog's generation parameters that are set, compactly (`max 256 · t 0.7`).
    parameters: str = ""
    #: The next request against the model's window (None: no model to ask).
    meter: Meter | None = None
    #: Of `input_tokens`, how many the server read from its prompt cache.
    cached_tokens: int = 0
    #: The dialog's answers' cost in dollars where known, and how many answers' cost is unknown.
    cost: float = 0.0
    cost_unknown: int = 0


@record(frozen=True, slots=True)
class Usage:
    """Tokens in and out a dialog's answers reported; `estimated` when any figure is the client's estimate (a
    server that reports no usage); the cache reads among the tokens in; the cost where known."""

    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False
    cached_tokens: int = 0
    cost: float = 0.0
    cost_unknown: int = 0


class UsageTally:
    """Tokens in and out each dialog's answers reported, added up once and then kept up to date.

    Read every frame while a reply streams, so it reads only the messages it has not counted yet.
    """

    def __init__(self) -> None:
        self._seen: dict[str, tuple[int, Usage]] = {}

    def of(self, dialog: Dialog, center: Center | None = None) -> Usage:
        count = dialog.message_count
        seen, totals = self._seen.get(dialog.id, (0, Usage()))
        if count < seen:
            seen, totals = 0, Usage()
        input_tokens, output_tokens, estimated = totals.input_tokens, totals.output_tokens, totals.estimated
        cached, cost, unknown = totals.cached_tokens, totals.cost, totals.cost_unknown
        if seen < count:  # (the usage and price rules load with the first message: the first frame has none)
            from visindigo.engine.context.usage import tokens_in
        for index in range(seen, count):
            message = dialog.message_at(index)
            usage = message.meta.get("usage")
            if isinstance(usage, dict):
                input_tokens += tokens_in(usage)  # the whole prompt, cache included, on every wire
                output_tokens += int(usage.get("output_tokens", 0) or 0)
                estimated = estimated or bool(usage.get("estimated"))
                cached += int(usage.get("cached_tokens", 0) or 0)
                dollars = _cost(center, message)
                cost, unknown = (cost, unknown + 1) if dollars is None else (cost + dollars, unknown)
        totals = Usage(input_tokens, output_tokens, estimated, cached, cost, unknown)
        self._seen[dialog.id] = (count, totals)
        return totals


def _cost(center: Center | None, message: Message) -> float | None:
    """One answer's cost in dollars (None: unknown), by the engine's rule (`engine.context.prices`)."""
    from visindigo.engine.context.prices import answer_cost
    from visindigo.engine.context.usage import answer_usage

    usage = answer_usage(message)
    if usage is None or center is None:
        return None if usage is not None else 0.0
    provider = center.get_provider(usage.provider_id) if usage.provider_id else None
    model = provider.get_model(usage.model_id) if provider is not None and usage.model_id else None
    return answer_cost(usage, provider, model).dollars


def status_info(
    center: Center, dialog: Dialog, run: RunState | None, usage: Usage, meter: Meter | None = None
) -> StatusInfo:
    """What the status line says about `dialog` (its run, if it has one, and the tokens it used)."""
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    provider_name = provider.name if provider is not None else (dialog.provider_id or "")
    model_name, marks, note = dialog.model_id, "", ""
    if provider is not None:
        model_name, marks, note = model_and_note(provider, dialog)
        model_name = model_name or provider.default_model  # a saved provider's default shows at once
    input_tokens, output_tokens, estimated = usage.input_tokens, usage.output_tokens, usage.estimated
    speed = 0.0
    state = ""
    final = False
    if run is not None:
        speed = run.tokens_per_second(time.monotonic())
        final = not run.streaming  # the last answer's figure, kept until the next one streams
        if run.running:
            output_tokens += run.round_deltas if run.streaming else 0
            if run.streaming and run.round_input_estimate:  # the server reports usage at the end: show the count
                input_tokens += run.round_input_estimate
                estimated = True
            state = "generating… esc cancels" if run.streaming else "working…"
            if run.waiting_for:
                state = f"waiting for {run.waiting_for}… esc cancels"
            if run.cancelling:
                state = "cancelling…"
        elif run.outcome == "empty":
            state = "empty answer"
    return StatusInfo(
        provider_name,
        model_name,
        marks,
        input_tokens,
        output_tokens,
        speed,
        state,
        final,
        note,
        estimated=estimated,
        parameters=parameters_summary(dialog.parameters),
        meter=meter,
        cached_tokens=usage.cached_tokens,
        cost=usage.cost,
        cost_unknown=usage.cost_unknown,
    )


def model_and_note(provider: Provider, dialog: Dialog) -> tuple[str, str, str]:
    """The model a run would use, its marks, and why a mark the dialog needs is missing (or "").

    A dialog that needs a capability (images, tools, reasoning) runs on a model that has it: when the chosen
    model lacks it another one is used, and when none has it the run will refuse; either way the status line
    says so instead of leaving the user to wonder where the mark went.
    """
    required = dialog.capability_requirement | Capability.TEXT
    chosen = provider.get_model(dialog.model_id) if dialog.model_id else None
    chosen = chosen or (provider.get_model(provider.default_model) if provider.default_model else None)
    try:
        model = provider.pick_model(required, dialog.model_id)
    except NoModelAvailable:
        if not provider.models:  # nothing listed (yet): "no model" says it; there is no mark to miss
            return dialog.model_id, "", ""
        shown = chosen or provider.models[0]
        lacking = required & ~shown.capabilities
        note = f"needs {lacking.marks()}: no model of {provider.name} has it (f2)"
        return shown.label, shown.capabilities.marks(), note
    note = ""
    if chosen is not None and chosen.id != model.id and required not in chosen.capabilities:
        lacking = required & ~chosen.capabilities
        note = f"needs {lacking.marks()}: {chosen.label} lacks it, so {model.label} answers"
    return model.label, model.capabilities.marks(), note


def changes_the_figures(event: RunEvent) -> bool:
    """Whether the status line's (or a column header's) figures may change with `event`: a run starting or
    ending, and of the engine's events a round beginning, usage reported, the dialog's model changed, or a note
    (waiting for the provider, another model answered) — not the tool calls and messages of a run."""
    from visindigo.engine import events as e  # loaded after the first frame

    if isinstance(event, RunStarted | RunEnded):
        return True
    if not isinstance(event, EngineEvent):
        return False
    return isinstance(event.event, e.StreamBegan | e.UsageReported | e.DialogChanged | e.Notice | e.EmptyAnswer
                      | e.WaitingForProvider)  # fmt: skip
