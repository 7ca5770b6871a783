"""What first-run setup can offer without asking: keys in the environment and model servers on this machine.

Keys are reported by the name of their environment variable, never by value, and the provider made from a
discovery reads the key from that variable at request time — so the key is not copied anywhere. The key
variables of the common OpenAI-compatible services are known with their base URLs (`KNOWN_KEYS`);
`OPENAI_BASE_URL` moves the OpenAI entry to another address (or, without a key, offers that address as a
server). Local servers are found by asking `http://127.0.0.1:PORT/v1/models` on the usual ports (Ollama 11434,
llama.cpp 8080, LM Studio 1234, vLLM and llama-cpp-python 8000) with a short timeout, all at once; only
loopback is probed, plus the address in `OLLAMA_HOST` when the user set one. `probed_addresses` says which
addresses that is, and `probe_url` tests an address the user typed.

What answered is told apart by the `owned_by` of its model list ("me" is llama-cpp-python, "llamacpp"
llama.cpp's own server, "vllm" vLLM) or, when that names no server, by llama-server's own `/props` (its
`total_slots` and `default_generation_settings`); the found provider says which server it is (the `server`
setting) so capabilities can be asked of it (`capabilities.py`). llama-cpp-python's server answers one request
at a time and cuts the stream it serves when a second arrives, so it gets `max_concurrent_runs = 1`;
llama-server serves as many requests at once as it has slots and queues the rest, so it gets no limit. A server
still loading its model answers 503 (llama-server: "Loading model"), and a typed address says so.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from ..provider import ModelInfo, Provider
from ..sanitize import clean_line
from ._httpx import httpx
from .capabilities import ASSUMED, SOURCES_KEY, learn_from_server, server_root, sources, with_sources
from .models import DEFAULT_LISTED_CAPABILITIES

__all__ = [
    "DEFAULT_PORTS",
    "KNOWN_KEYS",
    "LOCAL_SERVERS",
    "DiscoveredProvider",
    "discover_providers",
    "probe_url",
    "probed_addresses",
]


@dataclass(frozen=True, slots=True)
class DiscoveredProvider:
    """A provider that could be added; `source` is "environment" or "local"."""

    id: str
    name: str
    kind: str
    base_url: str
    source: str
    api_key_env: str = ""
    models: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)

    def to_provider(self) -> Provider:
        """The provider to add to a Center (and write to the config).

        Its models take text and tools (assumed, as for any listed model: the capability sources say so, and a
        server that refuses tools teaches otherwise); `learn_capabilities` asks the server where it can say."""
        return Provider(
            self.id,
            kind=self.kind,
            name=self.name,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            models=[
                with_sources(ModelInfo(model_id), DEFAULT_LISTED_CAPABILITIES, ASSUMED) for model_id in self.models
            ],
            default_model=self.models[0] if self.models else "",
            settings=dict(self.settings),
        )

    async def learn_capabilities(self) -> Provider:
        """`to_provider()` with what an Ollama or LM Studio server says its models can do."""
        provider = self.to_provider()
        for model in provider.models:
            model.extra.pop(SOURCES_KEY, None)
        await learn_from_server(provider, provider.models)
        for model in provider.models:
            if not sources(model):
                with_sources(model, DEFAULT_LISTED_CAPABILITIES, ASSUMED)
        return provider


@dataclass(frozen=True, slots=True)
class _Known:
    env: str
    id: str
    name: str
    kind: str
    base_url: str
    settings: Mapping[str, Any] = field(default_factory=dict)


#: Environment variables that name a hosted provider, with that provider's standard endpoint.
KNOWN_KEYS: tuple[_Known, ...] = (
    _Known("OPENAI_API_KEY", "openai", "OpenAI", "openai", "https://api.openai.com/v1"),
    _Known("ANTHROPIC_API_KEY", "anthropic", "Anthropic", "anthropic", "https://api.anthropic.com/v1"),
    _Known(
        "DEEPSEEK_API_KEY",
        "deepseek",
        "DeepSeek",
        "openai",
        "https://api.deepseek.com/v1",
        {"send_reasoning_with_tool_calls": True},
    ),
    _Known("OPENROUTER_API_KEY", "openrouter", "OpenRouter", "openai", "https://openrouter.ai/api/v1"),
    _Known("GROQ_API_KEY", "groq", "Groq", "openai", "https://api.groq.com/openai/v1"),
    _Known("MISTRAL_API_KEY", "mistral", "Mistral", "openai", "https://api.mistral.ai/v1"),
    _Known("TOGETHER_API_KEY", "together", "Together AI", "openai", "https://api.together.xyz/v1"),
    _Known("FIREWORKS_API_KEY", "fireworks", "Fireworks AI", "openai", "https://api.fireworks.ai/inference/v1"),
    _Known("XAI_API_KEY", "xai", "xAI", "openai", "https://api.x.ai/v1"),
    _Known(
        "GEMINI_API_KEY",
        "gemini",
        "Gemini (OpenAI endpoint)",
        "openai",
        "https://generativelanguage.googleapis.com/v1beta/openai",
    ),
    _Known("HF_TOKEN", "huggingface", "Hugging Face", "openai", "https://router.huggingface.co/v1"),
    _Known("CEREBRAS_API_KEY", "cerebras", "Cerebras", "openai", "https://api.cerebras.ai/v1"),
    _Known("DEEPINFRA_API_KEY", "deepinfra", "DeepInfra", "openai", "https://api.deepinfra.com/v1/openai"),
    _Known("PERPLEXITY_API_KEY", "perplexity", "Perplexity", "openai", "https://api.perplexity.ai"),
    _Known("NVIDIA_API_KEY", "nvidia", "NVIDIA NIM", "openai", "https://integrate.api.nvidia.com/v1"),
    _Known("SAMBANOVA_API_KEY", "sambanova", "SambaNova", "openai", "https://api.sambanova.ai/v1"),
)

#: Usual ports of local OpenAI-compatible servers: port -> (id, name); the model list can say otherwise.
LOCAL_SERVERS: dict[int, tuple[str, str]] = {
    11434: ("ollama", "Ollama"),
    8080: ("llamacpp", "llama.cpp"),
    1234: ("lmstudio", "LM Studio"),
    8000: ("vllm", "vLLM"),
}
DEFAULT_PORTS = (11434, 8080, 1234, 8000)

#: What a model list's `owned_by` says about the server: (server setting, id, name, settings).
_OWNERS: dict[str, tuple[str, str, str, Mapping[str, Any]]] = {
    "me": ("llama-cpp-python", "llamacpp", "llama.cpp (llama-cpp-python)", {"max_concurrent_runs": 1}),
    "llamacpp": ("llama.cpp", "llamacpp", "llama.cpp", {}),
    "vllm": ("vllm", "vllm", "vLLM", {}),
    "library": ("ollama", "ollama", "Ollama", {}),
    "organization_owner": ("lmstudio", "lmstudio", "LM Studio", {}),
}
_SERVER_OF_ID = {"ollama": "ollama", "lmstudio": "lmstudio", "llamacpp": "llama.cpp", "vllm": "vllm"}


def probed_addresses(env: Mapping[str, str] | None = None, ports: Iterable[int] = DEFAULT_PORTS) -> list[str]:
    """The base URLs `discover_providers` asks, in order: `OLLAMA_HOST` (when set), then loopback ports."""
    environment = os.environ if env is None else env
    addresses = []
    ollama = _ollama_host(environment.get("OLLAMA_HOST", ""))
    if ollama:
        addresses.append(ollama)
    for port in ports:
        address = f"http://127.0.0.1:{port}/v1"
        if address not in addresses:
            addresses.append(address)
    openai_base = environment.get("OPENAI_BASE_URL", "").strip().rstrip("/")
    if openai_base and not environment.get("OPENAI_API_KEY", "").strip() and openai_base not in addresses:
        addresses.append(openai_base)
    return addresses


async def discover_providers(
    env: Mapping[str, str] | None = None,
    ports: Iterable[int] = DEFAULT_PORTS,
    timeout: float = 0.3,
) -> list[DiscoveredProvider]:
    """Hosted providers whose key variable is set (in `KNOWN_KEYS` order), then servers that answered."""
    environment = os.environ if env is None else env
    found = []
    openai_base = environment.get("OPENAI_BASE_URL", "").strip().rstrip("/")
    for k in KNOWN_KEYS:
        if not environment.get(k.env, "").strip():
            continue
        base_url = openai_base if k.env == "OPENAI_API_KEY" and openai_base else k.base_url
        name = f"{k.name} ({base_url})" if base_url != k.base_url else k.name
        found.append(
            DiscoveredProvider(k.id, name, k.kind, base_url, "environment", api_key_env=k.env, settings=k.settings)
        )
    addresses = probed_addresses(environment, ports)
    # trust_env=False: a proxy from the environment must never see (or break) a probe of this machine
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        probes = await asyncio.gather(*(_probe(client, address) for address in addresses))
    taken = {provider.id for provider in found}
    for probe in probes:
        if isinstance(probe, DiscoveredProvider):
            if probe.id in taken:  # two servers of one kind: keep both, apart
                probe = replace(probe, id=f"{probe.id}-{urlsplit(probe.base_url).port or 'x'}")
            taken.add(probe.id)
            found.append(probe)
    return found


async def probe_url(text: str, timeout: float = 3.0) -> DiscoveredProvider | str:
    """The server at an address the user typed ("127.0.0.1:8765", "http://box:8080/v1", ...), or why not.

    The address is asked as typed (a missing scheme is http, a missing /v1 is tried too)."""
    base = text.strip().rstrip("/")
    if not base:
        return "type an address, for example 127.0.0.1:8080"
    if "://" not in base:
        base = f"http://{base}"
    candidates = [base] if base.endswith("/v1") else [f"{base}/v1", base]
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        reason = ""
        for candidate in candidates:
            outcome = await _probe(client, candidate)
            if isinstance(outcome, DiscoveredProvider):
                return outcome
            reason = reason or outcome
    return reason


async def _probe(client: httpx.AsyncClient, base_url: str) -> DiscoveredProvider | str:
    """The server at `base_url`, or the reason it is not one (for a typed address)."""
    try:
        response = await client.get(f"{base_url}/models")
        if response.status_code != 200:
            words = _error_words(response)
            return f"{base_url}/models answered HTTP {response.status_code}" + (f" ({words})" if words else "")
        document = response.json()
    except httpx.HTTPError as error:
        return f"{base_url}: {type(error).__name__} ({error or 'no answer'})"
    except (ValueError, httpx.InvalidURL):
        return f"{base_url}/models did not answer with JSON"
    entries = document.get("data") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return f"{base_url}/models is not a model list"
    listed = [e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]]
    models = tuple(str(e["id"]) for e in listed)
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    where = f"{parts.hostname}:{port}"
    owners = {str(e.get("owned_by", "")) for e in listed}
    known = next((_OWNERS[owner] for owner in owners if owner in _OWNERS), None)
    if known is None and await _is_llama_server(client, base_url):
        known = _OWNERS["llamacpp"]
    if known is not None:
        server, server_id, label, settings = known
    else:
        server_id, label = LOCAL_SERVERS.get(port, (f"local-{port}", "Local server"))
        server, settings = _SERVER_OF_ID.get(server_id, ""), {}
    all_settings = {**settings, **({"server": server} if server else {})}
    return DiscoveredProvider(
        server_id, f"{label} ({where})", "openai", base_url, "local", models=models, settings=all_settings
    )


async def _is_llama_server(client: httpx.AsyncClient, base_url: str) -> bool:
    """llama.cpp's own server, told by its `/props` (a model list alone may not say: a proxy in front, an
    `owned_by` some build changed)."""
    try:
        response = await client.get(f"{server_root(base_url)}/props")
        document = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return False
    return isinstance(document, dict) and "total_slots" in document and "default_generation_settings" in document


def _error_words(response: httpx.Response) -> str:
    """The server's own short reason in an error body ("Loading model"), cleaned to one line."""
    try:
        document = response.json()
    except ValueError:
        return ""
    error = document.get("error") if isinstance(document, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return clean_line(message, 120) if isinstance(message, str) else ""


def _ollama_host(value: str) -> str:
    """`OLLAMA_HOST` as a base URL: "0.0.0.0" (listen everywhere) is asked on 127.0.0.1, a bare port too."""
    value = value.strip().rstrip("/")
    if not value:
        return ""
    if "://" not in value:
        value = f"http://{value}"
    parts = urlsplit(value)
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    port = parts.port or 11434
    return f"{parts.scheme}://{host}:{port}/v1"
