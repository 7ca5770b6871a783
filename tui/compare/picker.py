"""Choosing the 2–4 models of a comparison: the model picker with a set instead of one choice.

space adds the highlighted model to the set (or takes it out), from any provider; enter starts with the set
(adding the highlighted model first when there is room); b asks for blind columns. The set starts as the last
one used (`engine.compare.last_set`) and is remembered again when the user starts.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from visindigo.engine.capability import Capability
from visindigo.engine.center import Center
from visindigo.engine.compare import ModelChoice
from visindigo.engine.compare.comparison import MAX_MODELS, MIN_MODELS
from visindigo.engine.compare.last_set import last_set, remember_set
from visindigo.engine.provider import ModelInfo, Provider
from visindigo.tui.common.modal import sanitize
from visindigo.tui.common.model_browser import ModelBrowser, ModelLister


@dataclass(frozen=True, slots=True)
class CompareSetup:
    """What the user chose: the models in the order added, and whether the columns are blind."""

    choices: list[ModelChoice]
    blind: bool = False


class ComparePickerScreen(ModelBrowser[CompareSetup | None]):
    """Dismisses with a `CompareSetup` of 2–4 models, or None when cancelled."""

    TITLE = "Compare models"
    KEYS_HINT = "space add/remove · enter start · b blind · tab switch · esc cancel"

    BINDINGS = [
        Binding("space", "toggle_selected", "Add or remove the model"),
        Binding("b", "toggle_blind", "Blind columns"),
    ]

    DEFAULT_CSS = """
    ComparePickerScreen #chosen {
        height: auto;
        margin-top: 1;
    }
    """

    def __init__(
        self,
        center: Center,
        *,
        chosen: list[ModelChoice] | None = None,
        blind: bool = False,
        required: Capability = Capability.TEXT,
        list_models: ModelLister | None = None,
    ) -> None:
        first = (chosen if chosen is not None else last_set(center)) or []
        known = [c for c in first if center.get_provider(c.provider_id) is not None][:MAX_MODELS]
        start = known[0].provider_id if known else ""
        super().__init__(center, start, known[0].model_id if known else "", required=required, list_models=list_models)
        self.chosen: list[ModelChoice] = known
        self.blind = blind

    def compose_extra(self) -> ComposeResult:
        yield Static("", id="chosen")

    def on_mount(self) -> None:
        super().on_mount()
        self._show_chosen()

    def _marked(self, provider: Provider, model: ModelInfo, current: str) -> bool:
        return ModelChoice(provider.id, model.id) in self.chosen

    def _highlighted_choice(self) -> ModelChoice | None:
        from textual.widgets import OptionList

        index = self.query_one("#models", OptionList).highlighted
        if self.provider is None or index is None or not 0 <= index < len(self._shown):
            return None
        return ModelChoice(self.provider.id, self._shown[index].id)

    def _label(self, choice: ModelChoice) -> str:
        provider = self._center.get_provider(choice.provider_id)
        return f"{choice.label} ({sanitize(provider.name if provider else choice.provider_id)})"

    def _show_chosen(self, note: str = "") -> None:
        count = len(self.chosen)
        listed = " · ".join(f"{n} {self._label(c)}" for n, c in enumerate(self.chosen, start=1))
        parts: list[Content | tuple[str, str] | str] = [
            (f"Compare {count} of {MIN_MODELS}–{MAX_MODELS}: ", "bold"),
            sanitize(listed) if listed else ("none yet: space adds the highlighted model", "dim"),
        ]
        if self.blind:
            parts.append(("  · blind", "bold"))
        if note:
            parts.append((f"\n{note}", "italic"))
        self.query_one("#chosen", Static).update(Content.assemble(*parts))

    def action_toggle_selected(self) -> None:
        choice = self._highlighted_choice()
        if choice is None:
            return
        if choice in self.chosen:
            self.chosen.remove(choice)
        elif len(self.chosen) >= MAX_MODELS:
            self._show_chosen(f"At most {MAX_MODELS} models; space on a chosen one takes it out.")
            return
        else:
            self.chosen.append(choice)
        self._show_models()
        self._show_chosen()

    def action_toggle_blind(self) -> None:
        self.blind = not self.blind
        self._show_chosen()

    def _choose(self, index: int) -> None:
        """enter: start (with the highlighted model added when it is not in the set and there is room)."""
        choice = self._highlighted_choice()
        if choice is not None and choice not in self.chosen and len(self.chosen) < MAX_MODELS:
            self.chosen.append(choice)
            self._show_models()
        if len(self.chosen) < MIN_MODELS:
            self._show_chosen(f"Choose at least {MIN_MODELS} models (space adds one, from any provider).")
            return
        remember_set(self._center, self.chosen)
        self.dismiss(CompareSetup(list(self.chosen), self.blind))

    def action_cancel(self) -> None:
        self.dismiss(None)
