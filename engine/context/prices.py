"""What an answer cost, and where the figure came from — never a guess: unknown is said as unknown.

In this order: the model's `price` in the config (dollars per million tokens: `input`, `output`, and optionally
`cached_input` and `cache_write`, which default to `input`); the cost the server reported with the answer
(OpenRouter); nothing for a server on this machine (llama.cpp, Ollama, LM Studio, vLLM, loopback); the price
catalogue (`genai-prices`, offline; `catalog.py`); else unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .catalog import catalog_price, is_loopback
from .usage import AnswerUsage

if TYPE_CHECKING:
    from ..model_info import ModelInfo
    from ..provider import Provider

__all__ = ["Cost", "answer_cost", "config_price"]

_LOCAL_SERVERS = ("llama.cpp", "ollama", "lmstudio", "vllm", "llama-cpp-python")


@dataclass(frozen=True, slots=True)
class Cost:
    """Dollars (None: unknown) and the source of the figure."""

    dollars: float | None
    source: str


def config_price(model: ModelInfo | None) -> dict[str, float] | None:
    """The model's configured prices per million tokens, or None when the config sets none."""
    price = model.extra.get("price") if model is not None else None
    if not isinstance(price, Mapping):
        return None
    found = {
        key: float(value)
        for key in ("input", "output", "cached_input", "cache_write")
        if isinstance(value := price.get(key), int | float) and not isinstance(value, bool) and value >= 0
    }
    return found if "input" in found or "output" in found else None


def answer_cost(usage: AnswerUsage, provider: Provider | None, model: ModelInfo | None) -> Cost:
    """The answer's cost by the first source that knows it (see the module's docstring)."""
    prices = config_price(model)
    if prices is not None:
        plain = prices.get("input", 0.0)
        dollars = (
            usage.uncached_input_tokens * plain
            + usage.cached_tokens * prices.get("cached_input", plain)
            + usage.cache_write_tokens * prices.get("cache_write", plain)
            + usage.output_tokens * prices.get("output", 0.0)
        ) / 1_000_000
        return Cost(dollars, "config price")
    if usage.reported_cost is not None:
        return Cost(usage.reported_cost, "reported by the server")
    if provider is not None and _is_local(provider):
        return Cost(0.0, "local server")
    if provider is not None and provider.kind == "scripted":  # the demo and the tests' replays cost nothing
        return Cost(0.0, "scripted provider")
    kind = provider.kind if provider is not None else ""
    base_url = provider.base_url if provider is not None else ""
    catalogued = catalog_price(
        usage.model_id or (model.id if model is not None else ""),
        provider_kind=kind,
        base_url=base_url,
        input_tokens=usage.input_tokens,
        cached_tokens=usage.cached_tokens,
        cache_write_tokens=usage.cache_write_tokens,
        output_tokens=usage.output_tokens,
        at=usage.at or None,
    )
    return Cost(catalogued, "genai-prices") if catalogued is not None else Cost(None, "unknown")


def _is_local(provider: Any) -> bool:
    server = provider.settings.get("server") if isinstance(provider.settings, dict) else None
    if server in _LOCAL_SERVERS:
        return True
    return provider.kind == "openai" and is_loopback(provider.base_url)
