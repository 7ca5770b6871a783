"""The form that adds or edits one provider; used by the provider manager and by first-run setup.

An API key is typed into a password field and never shown back: editing a provider shows only where its key
comes from ("set (stored)", "set (env OPENAI_API_KEY)"). Leaving the field empty keeps the stored key.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.validation import Function, Regex
from textual.widgets import Checkbox, Input, Select, Static

from visindigo.engine.provider import ModelInfo, Provider
from visindigo.engine.providers.models import DEFAULT_LISTED_CAPABILITIES
from visindigo.tui.common.modal import FORM_CSS, FormFrame, field_row

KINDS: list[tuple[str, str]] = [("OpenAI-compatible", "openai"), ("Anthropic", "anthropic")]
DEFAULT_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com/v1"}
PROVIDER_ID = r"^[A-Za-z0-9_-]{1,64}$"
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
URL = r"^https?://[^\s/]+\S*$"


def key_source(provider: Provider) -> str:
    """Where the provider's key comes from: "stored", "env", "missing" (env named but empty) or "none"."""
    key = provider.api_key
    env_value = os.environ.get(provider.api_key_env) if provider.api_key_env else None
    if key and key != env_value:
        return "stored"
    if key:
        return "env"
    return "missing" if provider.api_key_env else "none"


def key_status(provider: Provider) -> str:
    """The key's state in words, never the key: "set (stored)", "set (env OPENAI_API_KEY)", ..."""
    source = key_source(provider)
    if source == "stored":
        return "set (stored)"
    if source == "env":
        return f"set (env {provider.api_key_env})"
    if source == "missing":
        return f"not set (env {provider.api_key_env} is empty)"
    return "none"


@dataclass
class ProviderDraft:
    """What the form produced. `api_key`: None keeps the stored key, "" removes it, other text is the new key."""

    provider: Provider
    api_key: str | None = None


class ProviderFormScreen(FormFrame[ProviderDraft | None]):
    """Add a provider (`provider=None`) or edit one. Ctrl+S saves; Esc cancels; invalid fields are named."""

    DEFAULT_CSS = (
        FORM_CSS
        + """
    ProviderFormScreen > .frame {
        width: 84;
        padding: 1 1 0 1;
    }
    ProviderFormScreen #error {
        margin-top: 1;
        height: auto;
    }
    """
    )

    def __init__(
        self,
        provider: Provider | None = None,
        *,
        taken_ids: Collection[str] = (),
        title: str | None = None,
        suggestion: Provider | None = None,
    ) -> None:
        """`suggestion` pre-fills a new provider (first-run setup offers what it found)."""
        super().__init__()
        self._old = provider
        self._taken = set(taken_ids) - ({provider.id} if provider else set())
        self._title = title or ("Edit provider" if provider else "Add a provider")
        self._start = provider or suggestion
        self._kind: object = self._start.kind if self._start and self._start.kind in DEFAULT_URLS else "openai"

    def compose(self) -> ComposeResult:
        start = self._start
        editing = self._old is not None
        kind = start.kind if start and start.kind in DEFAULT_URLS else "openai"
        with Vertical(classes="frame") as frame:
            frame.border_title = self._title
            frame.border_subtitle = "tab next field · ctrl+s save · esc cancel"
            yield from field_row(
                "Id",
                Input(
                    start.id if start else "",
                    id="id",
                    compact=True,
                    disabled=editing,
                    placeholder="short name used in the config, e.g. openai",
                    max_length=64,
                    validators=[
                        Regex(PROVIDER_ID, failure_description="the id may use letters, digits, '-' and '_'"),
                        Function(lambda v: v not in self._taken, "there is a provider with this id already"),
                    ],
                ),
            )
            yield from field_row(
                "Name",
                Input(
                    start.name if start and start.name != start.id else "",
                    id="name",
                    compact=True,
                    placeholder="shown in lists (optional)",
                ),
            )
            yield from field_row("Kind", Select(KINDS, value=kind, allow_blank=False, id="kind", compact=True))
            yield from field_row(
                "Base URL",
                Input(  # empty: no request goes anywhere the user did not type
                    start.base_url if start else "",
                    id="base_url",
                    compact=True,
                    placeholder="e.g. http://127.0.0.1:8080/v1 (choosing a kind fills its usual address)",
                    validators=[Regex(URL, failure_description="the base URL must start with http:// or https://")],
                ),
            )
            yield from field_row(
                "Key env variable",
                Input(
                    start.api_key_env if start else "",
                    id="api_key_env",
                    compact=True,
                    placeholder="e.g. OPENAI_API_KEY (optional)",
                    valid_empty=True,
                    validators=[
                        Regex(
                            ENV_NAME,
                            failure_description=(
                                "the key variable must be the name of an environment variable (letters, digits and _), "
                                "not the key itself"
                            ),
                        )
                    ],
                ),
            )
            status = key_status(self._old) if self._old else ""
            placeholder = (
                f"{status}: type to replace, empty keeps it"
                if status.startswith("set (stored)")
                else "paste a key to store it (optional)"
            )
            yield from field_row(
                "API key", Input("", id="api_key", password=True, compact=True, placeholder=placeholder)
            )
            if self._old is not None and key_source(self._old) == "stored":
                yield from field_row("", Checkbox("Forget the stored key", id="forget_key", compact=True))
            yield from field_row(
                "Default model",
                Input(
                    start.default_model if start else "",
                    id="default_model",
                    compact=True,
                    placeholder="model id (optional)",
                ),
            )
            yield from field_row(
                "Models",
                Input(
                    ", ".join(m.id for m in start.models) if start else "",
                    id="models",
                    compact=True,
                    placeholder="ids, comma-separated (optional: listed from the endpoint)",
                ),
            )
            yield Static("", id="error", classes="error")
            yield from self.save_and_cancel()

    def on_mount(self) -> None:
        first = "#name" if self._old is not None else "#id"
        self.query_one(first, Input).focus()

    @on(Select.Changed, "#kind")
    def _kind_changed(self, event: Select.Changed) -> None:
        if event.value == self._kind:
            return  # the Select reporting its first value is not the user choosing a kind
        self._kind = event.value
        url = self.query_one("#base_url", Input)
        if (not url.value or url.value in DEFAULT_URLS.values()) and isinstance(event.value, str):
            url.value = DEFAULT_URLS.get(event.value, url.value)

    def _value(self, selector: str) -> str:
        return self.query_one(selector, Input).value.strip()

    def problems(self) -> list[str]:
        """Every reason the form cannot be saved yet, in the order of the fields."""
        found: list[str] = []
        for selector in ("#id", "#base_url", "#api_key_env"):
            widget = self.query_one(selector, Input)
            if widget.disabled:
                continue
            result = widget.validate(widget.value.strip())
            if result is not None and not result.is_valid:
                found.extend(result.failure_descriptions)
        return found

    def action_save(self) -> None:
        problems = self.problems()
        error = self.query_one("#error", Static)
        if problems:
            error.update(Content("Cannot save: " + "; ".join(problems) + "."))
            return
        error.update("")
        self.dismiss(self._draft())

    def _draft(self) -> ProviderDraft:
        old = self._old
        kind = self.query_one("#kind", Select).value
        wanted = [m.strip() for m in self._value("#models").split(",") if m.strip()]
        known = {m.id: m for m in (self._start.models if self._start else [])}
        models = [
            known.get(model_id) or ModelInfo(model_id, capabilities=DEFAULT_LISTED_CAPABILITIES)
            for model_id in dict.fromkeys(wanted)
        ]
        provider_id = old.id if old else self._value("#id")
        provider = Provider(
            provider_id,
            kind=str(kind),
            name=self._value("#name"),
            base_url=self._value("#base_url"),
            api_key_env=self._value("#api_key_env"),
            headers=old.headers if old else None,
            models=models,
            default_model=self._value("#default_model"),
            connect_timeout=old.connect_timeout if old else 10.0,
            read_timeout=old.read_timeout if old else 300.0,
            settings=base.settings if (base := old or self._start) is not None else None,
        )
        typed = self.query_one("#api_key", Input).value.strip()
        forget = bool(self.query(Checkbox).filter("#forget_key")) and self.query_one("#forget_key", Checkbox).value
        api_key: str | None
        if typed:
            api_key = typed
        elif forget:
            api_key = ""
        else:
            api_key = None
        if api_key:
            provider.api_key = api_key
        elif api_key is None and old is not None and key_source(old) == "stored":
            provider.api_key = old.api_key
        return ProviderDraft(provider, api_key)
