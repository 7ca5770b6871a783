"""Providers and models: where a dialog's requests go and which model answers them.

A `Provider` is configuration plus credentials; the wire formats live in `engine.providers` (one adapter per
API). The API key is held privately and never appears in `repr`, `to_json` or an error message.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .capability import Capability
from .env_refs import UnsetVariable, expand
from .model_info import ModelInfo
from .secrets import key_problem

__all__ = ["ModelInfo", "NoModelAvailable", "Provider"]

if TYPE_CHECKING:
    import asyncio

    from .providers.base import Adapter


_CREDENTIAL_HEADER_WORDS = ("auth", "key", "token", "secret", "cookie", "session")


class NoModelAvailable(LookupError):
    """No model of the provider meets the dialog's requirement; the message says what to change."""


class Provider:
    """An endpoint of one adapter kind ("openai", "anthropic" or "scripted") and its models."""

    def __init__(
        self,
        id: str,
        *,
        kind: str = "openai",
        name: str = "",
        base_url: str = "",
        api_key: str | None = None,
        api_key_env: str = "",
        headers: Mapping[str, str] | None = None,
        models: Iterable[ModelInfo] = (),
        default_model: str = "",
        connect_timeout: float = 10.0,
        read_timeout: float = 300.0,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        self.id = id
        self.kind = kind
        self.name = name or id
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.api_key_env = api_key_env
        self.headers = dict(headers or {})
        self.models: list[ModelInfo] = list(models)
        self.default_model = default_model
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        #: Per-provider quirks (for example `send_reasoning_with_tool_calls` for DeepSeek thinking mode).
        self.settings: dict[str, Any] = dict(settings or {})
        #: Whether `models` already holds the endpoint's own list (merged with the configured models).
        self.models_listed = False
        self._adapter: Adapter | None = None
        self._run_slots: asyncio.Semaphore | None = None
        self._run_slots_size = 0

    def __repr__(self) -> str:
        return f"Provider(id={self.id!r}, kind={self.kind!r}, base_url={self.base_url!r})"

    @property
    def api_key(self) -> str | None:
        """The key given explicitly, else the one in the named environment variable, else None.

        Surrounding whitespace is dropped: a key pasted with its line end, or read from a file by a shell, would
        otherwise make every request fail with an illegal-header error instead of working. A key that still holds
        a control character is not used at all (None); `key_problem` says where it came from.
        """
        key = self._raw_key().strip()
        return key if key and key_problem(key) is None else None

    @api_key.setter
    def api_key(self, value: str | None) -> None:
        self._api_key = value

    def _raw_key(self) -> str:
        return self._api_key or (os.environ.get(self.api_key_env, "") if self.api_key_env else "")

    def key_problem(self) -> str | None:
        """Why the configured key cannot be sent, naming the variable or setting (never the key), or None."""
        key = self._raw_key().strip()
        problem = key_problem(key) if key else None
        if problem is None:
            return None
        where = (
            f"the environment variable {self.api_key_env}"
            if not self._api_key and self.api_key_env
            else f"the settings of provider {self.id!r}"
        )
        return f"the API key in {where} {problem}; it is not sent"

    def request_headers(self) -> dict[str, str]:
        """The extra headers as sent: `${VAR}` / `${VAR:-default}` references expanded from the environment now.

        The config keeps the reference (`Authorization = "Bearer ${GATEWAY_TOKEN}"`), so the token itself never
        lands in a file. Raises `UnsetVariable` naming the variable (never a value) when one is missing.
        """
        return {
            name: expand(str(value), os.environ, where=f"header {name!r} of provider {self.name!r}")
            for name, value in self.headers.items()
        }

    def secrets(self) -> list[str]:
        """What must never be shown: the API key, the values of extra headers whose names suggest a credential
        (`api-key` for Azure, an `Authorization` header, a token header) — servers echo them in error bodies too —
        and whatever a `${VAR}` reference in any header expands to."""
        raw = self._raw_key()
        found = [key for key in {raw, raw.strip()} if key]
        for name, value in self.headers.items():
            lowered = name.lower()
            if any(word in lowered for word in _CREDENTIAL_HEADER_WORDS) and str(value).strip():
                found.append(str(value).strip())
            expanded: set[str] = set()
            try:
                resolved = expand(str(value), os.environ, found=expanded)
            except UnsetVariable:
                continue
            found.extend(sorted(expanded))
            if expanded and resolved.strip():
                found.append(resolved.strip())
        return found

    @property
    def max_concurrent_runs(self) -> int:
        """How many runs may have a request out to this provider at once (`max_concurrent_runs`; 0: no limit).

        Servers that answer one request at a time (llama-cpp-python's server cuts the stream it is serving when
        a second request arrives) need 1; first-run setup sets that for the servers it finds.
        """
        value = self.settings.get("max_concurrent_runs", 0)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    @property
    def run_slots(self) -> asyncio.Semaphore | None:
        """The semaphore a run holds while its request is out, or None without a limit (remade when it changes)."""
        size = self.max_concurrent_runs
        if not size:
            return None
        if self._run_slots is None or self._run_slots_size != size:
            import asyncio  # here: `visindigo ask` sends its question before asyncio is loaded (ask_early)

            self._run_slots = asyncio.Semaphore(size)
            self._run_slots_size = size
        return self._run_slots

    @property
    def adapter(self) -> Adapter:
        """The wire-format adapter for this provider, made on first use (it owns the HTTP client).

        Raises `ProviderError` for a kind no adapter handles, or a scripted provider without a script.
        """
        if self._adapter is None:
            from .providers.registry import create_adapter

            self._adapter = create_adapter(self)
        return self._adapter

    def attach_adapter(self, adapter: Adapter) -> None:
        """Use this adapter instead of the one `kind` names (scripted and demo providers, tests)."""
        self._adapter = adapter

    async def aclose(self) -> None:
        """Close the adapter's HTTP client; the next request opens a new one. Safe to call more than once."""
        if self._adapter is not None:
            await self._adapter.aclose()

    def get_model(self, model_id: str) -> ModelInfo | None:
        for model in self.models:
            if model.id == model_id:
                return model
        return None

    def pick_model(self, required: Capability = Capability.TEXT, preferred_id: str = "") -> ModelInfo:
        """The preferred model when it exists and meets `required`, otherwise the first that does.

        Falls back to the provider's default model before trying the rest of the list. Raises
        `NoModelAvailable` with a message that tells the user what to change.
        """
        candidates = []
        for model_id in (preferred_id, self.default_model):
            if model_id:
                model = self.get_model(model_id)
                if model is not None:
                    candidates.append(model)
        candidates.extend(self.models)
        for model in candidates:
            if required in model.capabilities:
                return model
        needed = ", ".join(required.names()) or "text"
        if not self.models:
            raise NoModelAvailable(
                f"provider {self.name!r} has no models; add one to its [providers.{self.id}] section "
                "in the config or check that the endpoint lists models"
            )
        if preferred_id and self.get_model(preferred_id) is None:
            prefix = f"model {preferred_id!r} is not offered by {self.name!r}, and no other model"
        else:
            prefix = f"no model of {self.name!r}"
        raise NoModelAvailable(
            f"{prefix} supports {needed}; pick another model or provider, or mark a model's "
            "capabilities in the config"
        )
