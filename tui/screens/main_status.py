"""The status line's figures: provider · model · capability marks · tokens in/out · live tokens per second."""

from __future__ import annotations

import time

from visindigo.engine import Capability, Dialog, NoModelAvailable, Provider
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
        model_name, marks, note = dialog.model_id, "", ""
        if provider is not None:
            model_name, marks, note = self._model_and_note(provider, dialog)
            model_name = model_name or provider.default_model  # a saved provider's default shows at once
        input_tokens, output_tokens, estimated = self._usage_of(dialog)
        run = self.runs.get(dialog.id)
        speed = 0.0
        state = ""
        final = False
        if run is not None:
            speed = run.tokens_per_second(time.monotonic())
            final = not run.streaming  # the last answer's figure, kept until the next one streams
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
                final,
                note,
                estimated=estimated,
                parameters=parameters_summary(dialog.parameters),
            )
        )

    @staticmethod
    def _model_and_note(provider: Provider, dialog: Dialog) -> tuple[str, str, str]:
        """The model a run would use, its marks, and why a mark the dialog needs is missing (or "").

        A dialog that needs a capability (images, tools, reasoning) runs on a model that has it: when the
        chosen model lacks it another one is used, and when none has it the run will refuse; either way the
        status line says so instead of leaving the user to wonder where the mark went.
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
