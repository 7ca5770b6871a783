"""The status line's figures for a dialog: provider · model · capability marks · tokens in/out · tokens per second
· what the run is doing. Computed here, drawn by `widgets.status_line`."""

from __future__ import annotations

import time
from dataclasses import dataclass

from visindigo.engine import Capability, Center, Dialog, NoModelAvailable

from .runs import RunState


@dataclass(frozen=True, slots=True)
class StatusInfo:
    provider: str = ""
    model: str = ""
    marks: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_per_second: float = 0.0
    state: str = ""


class UsageTally:
    """Tokens in and out each dialog's answers reported, added up once and then kept up to date.

    Read every frame while a reply streams, so it reads only the messages it has not counted yet.
    """

    def __init__(self) -> None:
        self._seen: dict[str, tuple[int, tuple[int, int]]] = {}

    def of(self, dialog: Dialog) -> tuple[int, int]:
        count = dialog.message_count
        seen, totals = self._seen.get(dialog.id, (0, (0, 0)))
        if count < seen:
            seen, totals = 0, (0, 0)
        input_tokens, output_tokens = totals
        for index in range(seen, count):
            usage = dialog.message_at(index).meta.get("usage")
            if isinstance(usage, dict):
                input_tokens += int(usage.get("input_tokens", 0) or 0)
                output_tokens += int(usage.get("output_tokens", 0) or 0)
        self._seen[dialog.id] = (count, (input_tokens, output_tokens))
        return input_tokens, output_tokens


def status_info(center: Center, dialog: Dialog, run: RunState | None, usage: tuple[int, int]) -> StatusInfo:
    """What the status line says about `dialog` (its run, if it has one, and the tokens it used)."""
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    provider_name = provider.name if provider is not None else (dialog.provider_id or "")
    model_name, marks = dialog.model_id, ""
    if provider is not None:
        try:
            model = provider.pick_model(dialog.capability_requirement | Capability.TEXT, dialog.model_id)
        except NoModelAvailable:
            model = None
        if model is not None:
            model_name, marks = model.label, model.capabilities.marks()
    input_tokens, output_tokens = usage
    speed = 0.0
    state = ""
    if run is not None:
        speed = run.tokens_per_second(time.monotonic())
        if run.running:
            output_tokens += run.round_deltas if run.streaming else 0
            state = "generating… esc cancels" if run.streaming else "working…"
            if run.cancelling:
                state = "cancelling…"
    return StatusInfo(provider_name, model_name, marks, input_tokens, output_tokens, speed, state)
