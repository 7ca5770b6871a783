"""The status line's figures: provider · model · capability marks · tokens in/out · live tokens per second."""

from __future__ import annotations

import time

from visindigo.engine import Capability, Dialog, NoModelAvailable
from visindigo.engine.parameters import summary as parameters_summary

from ..widgets.status_line import StatusInfo
from .main_base import MainBase


class StatusPart(MainBase):
    """Keeps the status line up to date (each frame while a reply streams, and once a second during a run)."""

    def _usage_of(self, dialog: Dialog) -> tuple[int, int, bool]:
        """Tokens in and out the dialog's answers reported, added up once and then kept up to date, and whether
        any figure is the client's estimate (a server that reports no usage).

        Called every frame while a reply streams, so it reads only messages it has not counted yet.
        """
        count = dialog.message_count
        seen, totals = self._usage_cache.get(dialog.id, (0, (0, 0, False)))
        if count < seen:
            seen, totals = 0, (0, 0, False)
        input_tokens, output_tokens, estimated = totals
        for index in range(seen, count):
            usage = dialog.message_at(index).meta.get("usage")
            if isinstance(usage, dict):
                input_tokens += int(usage.get("input_tokens", 0) or 0)
                output_tokens += int(usage.get("output_tokens", 0) or 0)
                estimated = estimated or bool(usage.get("estimated"))
        self._usage_cache[dialog.id] = (count, (input_tokens, output_tokens, estimated))
        return input_tokens, output_tokens, estimated

    def _refresh_status(self) -> None:
        dialog = self.dialog
        provider = self.center.get_provider(dialog.provider_id) if dialog.provider_id else self.center.default_provider
        provider_name = provider.name if provider is not None else (dialog.provider_id or "")
        model_name, marks = dialog.model_id, ""
        if provider is not None and not model_name:
            model_name = provider.default_model  # a saved provider's default shows at once, before any reply
        if provider is not None:
            try:
                model = provider.pick_model(dialog.capability_requirement | Capability.TEXT, dialog.model_id)
            except NoModelAvailable:
                model = None
            if model is not None:
                model_name, marks = model.label, model.capabilities.marks()
        input_tokens, output_tokens, estimated = self._usage_of(dialog)
        run = self.runs.get(dialog.id)
        speed = 0.0
        state = ""
        if run is not None:
            speed = run.tokens_per_second(time.monotonic())
            if run.running:
                output_tokens += run.round_deltas if run.streaming else 0
                state = "generating… esc cancels" if run.streaming else "working…"
                if run.waiting_for:
                    state = f"waiting for {run.waiting_for}… esc cancels"
                if run.cancelling:
                    state = "cancelling…"
            elif run.outcome == "empty":
                state = "empty answer"
        self.status_line.show(
            StatusInfo(
                provider_name,
                model_name,
                marks,
                input_tokens,
                output_tokens,
                speed,
                state,
                estimated=estimated,
                parameters=parameters_summary(dialog.parameters),
            )
        )
