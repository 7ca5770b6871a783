"""Browsing the providers and their models: the list the model picker and the compare picker are made of.

The list shows the configured models at once and, where the endpoint can list its own, fetches them in a
worker and merges them in (configured entries keep their capabilities). Endpoints such as OpenRouter list
hundreds of models, so the list can be filtered by typing.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from visindigo.engine.capability import Capability
from visindigo.engine.center import Center
from visindigo.engine.provider import ModelInfo, NoModelAvailable, Provider
from visindigo.engine.providers.base import ProviderError
from visindigo.engine.providers.capabilities import sources
from visindigo.tui.common.cursor_rows import CursorOptionList
from visindigo.tui.common.modal import ModalFrame, close_on_escape, safe, sanitize

ResultT = TypeVar("ResultT")

log = logging.getLogger(__name__)

ModelLister = Callable[[Provider], Awaitable[list[ModelInfo]]]
"""Fetches a provider's models from its endpoint, merged with the configured ones; raises on failure."""

PickedModel = tuple[str, str]
"""(provider id, model id)."""

LEGEND = "T text · I images · F tools · R reasoning"


async def _default_lister(provider: Provider) -> list[ModelInfo]:
    from visindigo.engine.providers.models import list_models

    return await list_models(provider)


def _window(tokens: int) -> str:
    if tokens <= 0:
        return ""
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:g}M"
    return f"{tokens // 1000}k" if tokens >= 1000 else str(tokens)


def capability_columns(capabilities: Capability) -> str:
    """Marks in fixed columns ("TIF·"), so a long list can be scanned down one column."""
    letters = ((Capability.TEXT, "T"), (Capability.IMAGE, "I"), (Capability.TOOLS, "F"), (Capability.REASONING, "R"))
    return "".join(letter if flag in capabilities else "·" for flag, letter in letters)


def mark_sources(model: ModelInfo) -> str:
    """Where each mark of the model came from: "text, tools: assumed · image: server: Ollama /api/show".

    Marks without a recorded source come from the config (the user wrote them, or an older version did)."""
    recorded = sources(model)
    by_source: dict[str, list[str]] = {}
    for name in model.capabilities.names():
        by_source.setdefault(recorded.get(name, "config"), []).append(name)
    return " · ".join(f"{', '.join(names)}: {source}" for source, names in by_source.items())


async def _learn_windows(provider: Provider) -> None:
    """The windows a listing does not state: asked of the server once a session, else the known ones of hosted
    models; a failure leaves them unknown (said so in the picker)."""
    from visindigo.engine.providers.windows import ensure_windows

    try:
        await ensure_windows(provider)
    except Exception:
        log.exception("learning the windows of %s failed", provider.id)


def window_source(model: ModelInfo) -> str:
    """The model's context window and where the figure came from ("window unknown" when nothing said it)."""
    from visindigo.engine.providers.windows import window

    tokens, source = window(model)
    return f"window {tokens:,} ({source})" if tokens else "window unknown"


def model_prompt(model: ModelInfo, *, current: bool, required: Capability) -> Content:
    """One row: current mark, capability marks, name, context window, and what this dialog needs but lacks."""
    label = model.name if model.name and model.name.lower() != model.id.lower() else model.id
    parts: list[Content | tuple[str, str] | str] = [
        ("● " if current else "  ", "bold"),
        (capability_columns(model.capabilities), "bold"),
        "  ",
        safe(label),
    ]
    if label != model.id:
        parts.append((f"  {sanitize(model.id)}", "dim"))
    window = _window(model.context_window)
    if window:
        parts.append((f"  {window}", "dim"))
    missing = required & ~model.capabilities
    if missing:
        parts.append((f"  (no {', '.join(missing.names())})", "italic dim"))
    return Content.assemble(*parts)


class ModelBrowser(ModalFrame[ResultT]):
    """Providers on the left, their models on the right (listed from the endpoint, filtered by typing).

    `list_models` defaults to `engine.providers.models.list_models`; a successful listing is kept on the
    provider (`models`, `models_listed`) so it is fetched once per session. Subclasses say what choosing a
    model does (`_choose`) and which rows carry the ● mark (`_marked`).
    """

    TITLE = "Choose a model"
    KEYS_HINT = "tab switch · enter choose · ctrl+r list again · esc cancel"

    BINDINGS = [
        close_on_escape("cancel", "Cancel"),
        Binding("down", "to_models", "To the model list", show=False),
        Binding("ctrl+r", "refresh", "List models again"),
    ]

    DEFAULT_CSS = """
    ModelBrowser > .frame {
        width: 100;
        height: 100%;
        max-height: 32;
    }
    ModelBrowser #columns {
        height: 1fr;
        margin-top: 1;
    }
    ModelBrowser #providers {
        width: 22;
        height: 1fr;
    }
    ModelBrowser #model-side {
        width: 1fr;
        height: 1fr;
        margin-left: 1;
    }
    ModelBrowser #models {
        height: 1fr;
    }
    ModelBrowser #status {
        height: auto;
    }
    """

    def __init__(
        self,
        center: Center,
        current_provider_id: str = "",
        current_model_id: str = "",
        *,
        required: Capability = Capability.TEXT,
        list_models: ModelLister | None = None,
    ) -> None:
        super().__init__()
        self._center = center
        self._providers = center.providers
        self._current_provider_id = current_provider_id or center.default_provider_id
        self._current_model_id = current_model_id
        self._required = required
        self._lister = list_models or _default_lister
        self._provider: Provider | None = None
        self._shown: list[ModelInfo] = []
        self._shown_for: Provider | None = None
        self._errors: dict[str, str] = {}

    # --- layout -------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(classes="frame") as frame:
            frame.border_title = self.TITLE
            frame.border_subtitle = self.KEYS_HINT
            with Horizontal(id="columns"):
                yield CursorOptionList(*(self._provider_option(p) for p in self._providers), id="providers")
                with Vertical(id="model-side"):
                    yield Input(placeholder="Filter models", id="filter")
                    yield CursorOptionList(id="models")
            yield from self.compose_extra()
            yield Static("", id="status", classes="hint")
            yield Static("", id="sources", classes="hint")
            yield Label(LEGEND, classes="hint")

    def compose_extra(self) -> ComposeResult:
        """Widgets a subclass shows between the lists and the status line (none here)."""
        yield from ()

    def _provider_option(self, provider: Provider) -> Option:
        default = provider.id == self._center.default_provider_id
        return Option(
            Content.assemble(safe(provider.name), ("  default" if default else "", "dim italic")),
            id=provider.id,
        )

    def on_mount(self) -> None:
        providers = self.query_one("#providers", OptionList)
        if not self._providers:
            self._status("No providers are configured. Add one in the provider manager first.")
            return
        ids = [p.id for p in self._providers]
        providers.highlighted = ids.index(self._current_provider_id) if self._current_provider_id in ids else 0
        providers.focus()
        if self._current_provider_id in ids:
            self.query_one("#models", OptionList).focus()

    # --- showing models -----------------------------------------------------------------------------------

    @property
    def provider(self) -> Provider | None:
        """The provider whose models are shown."""
        return self._provider

    @property
    def shown_model_ids(self) -> list[str]:
        return [model.id for model in self._shown]

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(safe(text))

    @on(OptionList.OptionHighlighted, "#providers")
    def _provider_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        provider = self._center.get_provider(event.option.id or "")
        if provider is None or provider is self._provider:
            return
        self._provider = provider
        self._show_models()
        if not provider.models_listed and provider.id not in self._errors:
            self._fetch(provider)

    def _show_models(self) -> None:
        provider = self._provider
        models_list = self.query_one("#models", OptionList)
        if provider is None:
            return
        highlighted = models_list.highlighted
        previous = ""
        if self._shown_for is provider and highlighted is not None and highlighted < len(self._shown):
            previous = self._shown[highlighted].id  # keep the cursor on the same model while filtering
        needle = self.query_one("#filter", Input).value.strip().lower()
        self._shown = [
            m for m in provider.models if not needle or needle in m.id.lower() or needle in (m.name or "").lower()
        ]
        self._shown_for = provider
        current = self._current_for(provider)
        models_list.clear_options()
        models_list.add_options(
            Option(model_prompt(m, current=self._marked(provider, m, current), required=self._required))
            for m in self._shown
        )
        ids = self.shown_model_ids
        for wanted in (previous, current):
            if wanted in ids:
                models_list.highlighted = ids.index(wanted)
                break
        else:
            if ids:
                models_list.highlighted = 0
        self._describe(provider, needle)

    def _marked(self, provider: Provider, model: ModelInfo, current: str) -> bool:
        """Whether the row of `model` carries the ● mark: here, the model the dialog uses."""
        return model.id == current

    def _current_for(self, provider: Provider) -> str:
        """The model a dialog on this provider uses: the chosen one, else the one `pick_model` would take."""
        preferred = self._current_model_id if provider.id == self._current_provider_id else ""
        try:
            return provider.pick_model(self._required, preferred).id
        except NoModelAvailable:
            return preferred or provider.default_model

    def _describe(self, provider: Provider, needle: str) -> None:
        total = len(provider.models)
        if provider.id in self._errors:
            note = f"Could not list models from the endpoint: {self._errors[provider.id]}"
            if total:
                note += " — showing the configured ones."
        elif not provider.models_listed:
            note = "Listing the endpoint's models…"
        else:
            note = f"{total} model{'s' if total != 1 else ''}."
        if not total and provider.id in self._errors:
            note += " Add a model to this provider in the provider manager."
        if needle and not self._shown:
            note = f"No model matches {needle!r}. " + note
        self._status(note)

    @work(exclusive=True, group="list-models", exit_on_error=False)
    async def _fetch(self, provider: Provider) -> None:
        try:
            models = await self._lister(provider)
        except ProviderError as error:  # its message is written for the user, with the key redacted
            self._errors[provider.id] = sanitize(str(error)) or "unknown error"
        except Exception as error:  # anything else may quote a URL or header: name the kind of failure only
            self._errors[provider.id] = f"unexpected {type(error).__name__}"
        else:
            provider.models = models
            provider.models_listed = True
            self._errors.pop(provider.id, None)
            await _learn_windows(provider)
        if provider is self._provider:
            self._show_models()

    @on(Input.Changed, "#filter")
    def _filter_changed(self) -> None:
        self._show_models()

    @on(OptionList.OptionHighlighted, "#models")
    def _model_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        index = event.option_index
        model = self._shown[index] if 0 <= index < len(self._shown) else None
        about = f"Marks from {mark_sources(model)} · {window_source(model)}" if model else ""
        self.query_one("#sources", Static).update(safe(about))

    # --- choosing -----------------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#providers")
    def _provider_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one("#models", OptionList).focus()

    @on(OptionList.OptionSelected, "#models")
    def _model_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(event.option_index)

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        highlighted = self.query_one("#models", OptionList).highlighted
        if highlighted is not None:
            self._choose(highlighted)

    def _choose(self, index: int) -> None:
        """Enter on the model at `index` of the shown list."""
        raise NotImplementedError

    def action_to_models(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#models", OptionList).focus()

    def action_refresh(self) -> None:
        if self._provider is not None:
            self._errors.pop(self._provider.id, None)
            self._provider.models_listed = False
            self._describe(self._provider, "")
            self._fetch(self._provider)

    def action_cancel(self) -> None:
        raise NotImplementedError
