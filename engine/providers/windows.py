"""How many tokens a model reads at most — its context window — and where that figure came from.

The figure is asked of the server where the server can say it, in this order:

- llama.cpp's server: `GET /props` (`default_generation_settings.n_ctx`, the window of one slot: the server's
  `-c` divided among its parallel slots), else its `/v1/models` entry's `meta.n_ctx`;
- Ollama: `POST /api/show` (the model's trained length in `model_info` and a `num_ctx` set in its Modelfile);
  without one, Ollama cuts the prompt at its own default (`OLLAMA_DEFAULT_NUM_CTX`), and the window says so;
- LM Studio: `GET /api/v0/models` (`loaded_context_length` of a loaded model, else `max_context_length`);
- OpenRouter: its `/models` entries' `context_length`; vLLM: its `/v1/models` entries' `max_model_len`;

then the config's `context_window`, then the window the price catalogue knows for a hosted model (OpenAI,
Anthropic, ...; `engine.context.catalog`), else "unknown" — shown as such, never guessed. Each model records the
source in `extra["context_source"]` beside its `context_window`, as its capability marks record theirs.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..model_info import ModelInfo
from ..model_window import CONFIG, SOURCE_KEY, UNKNOWN, set_window, settled, window
from .capabilities import LLAMA_CPP_SLOT_WINDOW, server_kind, server_root

if TYPE_CHECKING:
    from ._httpx import httpx
    from .base import Endpoint

__all__ = [
    "CONFIG",
    "LEARNT_KEYS",
    "LOCAL_SERVERS",
    "OLLAMA_DEFAULT_NUM_CTX",
    "SOURCE_KEY",
    "UNKNOWN",
    "ensure_windows",
    "learn_windows",
    "ollama_num_ctx",
    "set_window",
    "window",
    "window_from_listing",
]

#: Ollama: the length the model was trained for (`model_info`), the most `num_ctx` can usefully be.
TRAINED_KEY = "trained_context"
#: Keys of `ModelInfo.extra` learnt from a server this session, never written to the config.
#: Ollama: the `num_ctx` the model's Modelfile sets (the user's choice there: sent as it is).
MODELFILE_KEY = "modelfile_num_ctx"
LEARNT_KEYS = frozenset({SOURCE_KEY, TRAINED_KEY, MODELFILE_KEY, "owned_by"})
#: What Ollama cuts a prompt at when neither the request nor the model's Modelfile sets `num_ctx`.
OLLAMA_DEFAULT_NUM_CTX = 4096
#: The `num_ctx` sent to Ollama for a model whose length is known, unless the config says otherwise
#: (`ollama_num_ctx_cap`): a larger window costs memory on the user's machine for every token of it.
DEFAULT_NUM_CTX_CAP = 32768
#: Servers that run on the user's machine: the catalogue's windows (and prices) of hosted models do not apply.
LOCAL_SERVERS = frozenset({"llama.cpp", "ollama", "lmstudio", "vllm", "llama-cpp-python"})
#: Marks a provider whose windows were asked of its server in this session.
_ASKED = "_windows_asked"


def window_from_listing(entry: Mapping[str, Any]) -> tuple[int, str] | None:
    """The window a `/models` entry states itself: llama.cpp's `meta.n_ctx`, vLLM's `max_model_len`, OpenRouter's
    `context_length`; None when it states none."""
    meta = entry.get("meta")
    if isinstance(meta, dict) and _count(meta.get("n_ctx")):
        return _count(meta.get("n_ctx")), "server: /v1/models meta.n_ctx"
    if _count(entry.get("max_model_len")):
        return _count(entry.get("max_model_len")), "server: /v1/models max_model_len"
    if _count(entry.get("context_length")):
        return _count(entry.get("context_length")), "server: /models context_length"
    return None


async def ensure_windows(provider: Any, *, timeout: float = 5.0) -> None:
    """Ask the provider's server for its models' windows once per session (a run, the picker, the fit check).

    `provider` is a `Provider`; a server that does not answer leaves every window as it was."""
    if getattr(provider, _ASKED, False) or provider.kind != "openai":
        await _known_windows(provider.models, provider)
        return
    setattr(provider, _ASKED, True)
    await learn_windows(provider, provider.models, timeout=timeout)
    await _known_windows(provider.models, provider)


async def learn_windows(
    provider: Endpoint, models: Iterable[ModelInfo], *, timeout: float = 5.0, client: httpx.AsyncClient | None = None
) -> None:
    """Set the windows of `models` from what their llama.cpp, Ollama or LM Studio server says (with sources)."""
    kind = server_kind(provider)
    pending = [model for model in models if not settled(model)]
    if not pending:
        return
    if not kind and any(model.extra.get("owned_by") == "llamacpp" for model in pending):
        kind = "llama.cpp"
    if kind not in ("llama.cpp", "ollama", "lmstudio"):
        return
    from ._httpx import httpx

    root = server_root(provider.base_url)
    own = client is None
    session = client or httpx.AsyncClient(timeout=timeout, trust_env=False)
    try:
        if kind == "llama.cpp":
            slot = await _llama_props(session, root, provider)
            if slot:
                for model in pending:
                    set_window(model, slot, LLAMA_CPP_SLOT_WINDOW)
        elif kind == "ollama":
            shown = await asyncio.gather(*(_ollama_window(session, root, model, provider) for model in pending))
            native = provider.settings.get("ollama_native", True) is not False
            for model, learnt in zip(pending, shown, strict=True):
                if learnt is not None:
                    set_window(model, *learnt)
                sent = ollama_num_ctx(model, provider.settings) if native else 0
                if sent and sent != model.context_window:  # the num_ctx /api/chat sends is the window in force
                    set_window(model, sent, f"sent: num_ctx {sent} to Ollama /api/chat")
        else:
            table = await _lmstudio_windows(session, root, provider)
            for model in pending:
                if model.id in table:
                    set_window(model, *table[model.id])
    finally:
        if own:
            await session.aclose()


def ollama_num_ctx(model: ModelInfo, settings: Mapping[str, Any]) -> int:
    """The `num_ctx` to send to Ollama for `model`: the model's own `num_ctx` in the config, else the one its
    Modelfile sets, else its trained length capped by the provider's `ollama_num_ctx_cap` (default
    `DEFAULT_NUM_CTX_CAP`); 0 when unknown."""
    configured = _count(model.extra.get("num_ctx")) or _count(model.extra.get(MODELFILE_KEY))
    if configured:
        return configured
    trained = _count(model.extra.get(TRAINED_KEY))
    cap = _count(settings.get("ollama_num_ctx_cap")) or DEFAULT_NUM_CTX_CAP
    return min(trained, cap) if trained else 0


async def _known_windows(models: Iterable[ModelInfo], provider: Any) -> None:
    """Models whose window nothing stated get the one the catalogue knows for a hosted model (in a thread: the
    catalogue's first use loads its data)."""
    missing = [model for model in models if model.context_window <= 0 and SOURCE_KEY not in model.extra]
    kind, base_url = str(getattr(provider, "kind", "")), str(getattr(provider, "base_url", ""))
    from ..context.catalog import is_loopback, lookup

    local = (is_loopback(base_url) and kind != "anthropic") or server_kind(provider) in LOCAL_SERVERS
    for model in missing:
        model.extra[SOURCE_KEY] = UNKNOWN  # asked once: a model the catalogue does not know stays unknown
    if not missing or local or kind == "scripted":
        return
    found = await asyncio.to_thread(
        lambda: [lookup(model.id, provider_kind=kind, base_url=base_url) for model in missing]
    )
    for model, entry in zip(missing, found, strict=True):
        if entry is not None and entry.context_window > 0:
            set_window(model, entry.context_window, f"known: {entry.name} ({entry.provider}), genai-prices")


def _auth(provider: Endpoint) -> dict[str, str]:
    key = provider.api_key
    return {"Authorization": f"Bearer {key}"} if key else {}


async def _get_json(client: httpx.AsyncClient, method: str, url: str, provider: Endpoint, **kwargs: Any) -> Any:
    from ._httpx import httpx

    try:
        response = await client.request(method, url, headers=_auth(provider), **kwargs)
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


async def _llama_props(client: httpx.AsyncClient, root: str, provider: Endpoint) -> int:
    document = await _get_json(client, "GET", f"{root}/props", provider)
    settings = document.get("default_generation_settings") if isinstance(document, dict) else None
    return _count(settings.get("n_ctx")) if isinstance(settings, dict) else 0


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


async def _ollama_window(
    client: httpx.AsyncClient, root: str, model: ModelInfo, provider: Endpoint
) -> tuple[int, str] | None:
    document = await _get_json(client, "POST", f"{root}/api/show", provider, json={"model": model.id})
    if not isinstance(document, dict):
        return None
    trained = _ollama_trained(document)
    if trained:
        model.extra[TRAINED_KEY] = trained
    parameters = document.get("parameters")
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    if found:
        model.extra[MODELFILE_KEY] = int(found.group(1))
        return int(found.group(1)), "server: Ollama /api/show (num_ctx set in the model)"
    if trained:
        shown = min(trained, OLLAMA_DEFAULT_NUM_CTX)
        return shown, f"server: Ollama /api/show (trained for {trained}; no num_ctx set, Ollama's default applies)"
    return None


def _ollama_trained(document: dict[str, Any]) -> int:
    info = document.get("model_info")
    if not isinstance(info, dict):
        return 0
    return next((_count(v) for k, v in info.items() if str(k).endswith(".context_length") and _count(v)), 0)


async def _lmstudio_windows(client: httpx.AsyncClient, root: str, provider: Endpoint) -> dict[str, tuple[int, str]]:
    document = await _get_json(client, "GET", f"{root}/api/v0/models", provider)
    entries = document.get("data") if isinstance(document, dict) else None
    table: dict[str, tuple[int, str]] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        loaded, largest = _count(entry.get("loaded_context_length")), _count(entry.get("max_context_length"))
        if loaded:
            table[entry["id"]] = loaded, "server: LM Studio /api/v0/models (loaded_context_length)"
        elif largest:
            table[entry["id"]] = largest, "server: LM Studio /api/v0/models (max_context_length; not loaded)"
    return table


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
