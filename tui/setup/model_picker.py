"""Choosing a provider and one of its models for the dialog (the browser is `common.model_browser`)."""

from __future__ import annotations

from textual.binding import Binding

from visindigo.tui.common.model_browser import ModelBrowser, PickedModel

#: What the model picker dismisses with when the user asks to compare several models instead (alt+c).
COMPARE: PickedModel = ("", "compare")


class ModelPickerScreen(ModelBrowser[PickedModel | None]):
    """Dismisses with (provider_id, model_id), `COMPARE` for "compare several models", or None when cancelled."""

    KEYS_HINT = "tab switch · enter choose · alt+c compare · ctrl+r list again · esc cancel"

    BINDINGS = [Binding("alt+c", "compare", "Compare several models", priority=True)]

    def action_compare(self) -> None:
        self.dismiss(COMPARE)

    def _choose(self, index: int) -> None:
        if self._provider is None or not 0 <= index < len(self._shown):
            return
        self.dismiss((self._provider.id, self._shown[index].id))

    def action_cancel(self) -> None:
        self.dismiss(None)
