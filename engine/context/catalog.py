"""What a maintained catalogue knows of hosted models: their context windows and prices (`genai-prices`).

The package ships its price data offline (hundreds of models of OpenAI, Anthropic, Google, DeepSeek, OpenRouter,
...), with each model's context window; its optional updater downloads fresh data and is never started here, so
no lookup reaches the network. Importing the data costs a few hundred milliseconds, so it happens on the first
lookup only — from a worker thread or a command, never on a frame. Without the package every lookup answers
None ("unknown"), which is what the screens then say.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["CatalogModel", "catalog_available", "catalog_price", "is_loopback", "lookup"]

#: Provider kinds and hosts that mean the catalogue's provider of that id.
_PROVIDER_IDS = {"anthropic": "anthropic"}


@dataclass(frozen=True, slots=True)
class CatalogModel:
    """One model as the catalogue knows it: its name there, its window (0: not stated) and its provider."""

    name: str
    provider: str
    context_window: int


@functools.cache
def catalog_available() -> bool:
    """Whether the price catalogue can be imported (and so whether its data is loaded now)."""
    try:
        from genai_prices import data_snapshot

        data_snapshot.get_snapshot()
    except Exception:  # not installed, or data that no longer loads: prices and windows are "unknown"
        log.info("genai-prices is not available; hosted models' prices and windows are unknown")
        return False
    return True


def lookup(model_id: str, *, provider_kind: str = "", base_url: str = "") -> CatalogModel | None:
    """The catalogue's entry for a model id served by a provider of `provider_kind` at `base_url`, or None.

    A loopback address is never looked up for chat completions: a local server's "gpt-4o" is whatever file it
    loaded (an Anthropic Messages endpoint on loopback is a proxy to Anthropic's models, and is).
    """
    found = _find(model_id, provider_kind, base_url)
    if found is None:
        return None
    provider, model = found
    return CatalogModel(str(model.name or model.id), str(provider.id), int(model.context_window or 0))


def catalog_price(
    model_id: str,
    *,
    provider_kind: str = "",
    base_url: str = "",
    input_tokens: int = 0,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,
    output_tokens: int = 0,
    at: float | None = None,
) -> float | None:
    """The dollars the catalogue charges for one answer's tokens (`input_tokens` is the whole prompt, cache reads
    and writes included, as the catalogue wants it), or None when it does not know the model."""
    found = _find(model_id, provider_kind, base_url)
    if found is None:
        return None
    from genai_prices import Usage

    provider, model = found
    usage = Usage(
        input_tokens=input_tokens,
        cache_read_tokens=min(cached_tokens, input_tokens),
        cache_write_tokens=min(cache_write_tokens, max(0, input_tokens - cached_tokens)),
        output_tokens=output_tokens,
    )
    when = datetime.fromtimestamp(at, tz=UTC) if at else None
    try:
        calculation = model.calc_price(usage, provider, genai_request_timestamp=when or datetime.now(tz=UTC))
    except Exception as error:  # a model whose prices the data cannot compute for these figures
        log.info("no catalogue price for %s: %s", model_id, error)
        return None
    return float(calculation.total_price)


def _find(model_id: str, provider_kind: str, base_url: str) -> tuple[Any, Any] | None:
    if not model_id or (is_loopback(base_url) and provider_kind != "anthropic") or not catalog_available():
        return None
    return _cached_find(model_id, provider_kind, base_url)


@functools.lru_cache(maxsize=512)
def _cached_find(model_id: str, provider_kind: str, base_url: str) -> tuple[Any, Any] | None:
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    attempts: list[dict[str, str | None]] = []
    provider_id = _PROVIDER_IDS.get(provider_kind)
    if provider_id:
        attempts.append({"provider_id": provider_id, "provider_api_url": None})
    if base_url:
        attempts.append({"provider_id": None, "provider_api_url": base_url})
    attempts.append({"provider_id": None, "provider_api_url": None})
    for attempt in attempts:
        try:
            provider, model = snapshot.find_provider_model(
                model_id, None, attempt["provider_id"], attempt["provider_api_url"]
            )
            return provider, model
        except LookupError:
            continue
        except Exception as error:  # the catalogue's own bug must cost a price, not the answer
            log.info("catalogue lookup of %s failed: %s", model_id, error)
            return None
    return None


def is_loopback(base_url: str) -> bool:
    from urllib.parse import urlsplit

    host = (urlsplit(base_url).hostname or "").lower() if base_url else ""
    return host in ("localhost", "::1") or host.startswith("127.")
