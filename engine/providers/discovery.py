"""What first-run setup can offer without asking: keys in the environment and model servers on this machine.

Keys are reported by the name of their environment variable, never by value, and the provider made from a
discovery reads the key from that variable at request time — so the key is not copied anywhere. Local servers
are found by asking `http://127.0.0.1:PORT/v1/models` on the usual ports (Ollama 11434, llama.cpp 8080,
LM Studio 1234, vLLM 8000) with a short timeout, all at once; only loopback is ever probed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..provider import ModelInfo, Provider
from ._httpx import httpx

__all__ = ["KNOWN_KEYS", "LOCAL_SERVERS", "DiscoveredProvider", "discover_providers"]


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
        """The provider to add to a Center (and write to the config)."""
        return Provider(
            self.id,
            kind=self.kind,
            name=self.name,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            models=[ModelInfo(model_id) for model_id in self.models],
            default_model=self.models[0] if self.models else "",
            settings=dict(self.settings),
        )


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
)

#: Usual ports of local OpenAI-compatible servers: port -> (id, name).
LOCAL_SERVERS: dict[int, tuple[str, str]] = {
    11434: ("ollama", "Ollama"),
    8080: ("llamacpp", "llama.cpp"),
    1234: ("lmstudio", "LM Studio"),
    8000: ("vllm", "vLLM"),
}


async def discover_providers(
    env: Mapping[str, str] | None = None,
    ports: Iterable[int] = (11434, 8080, 1234, 8000),
    timeout: float = 0.3,
) -> list[DiscoveredProvider]:
    """Hosted providers whose key variable is set (in `KNOWN_KEYS` order), then local servers that answered."""
    environment = os.environ if env is None else env
    found = [
        DiscoveredProvider(k.id, k.name, k.kind, k.base_url, "environment", api_key_env=k.env, settings=k.settings)
        for k in KNOWN_KEYS
        if environment.get(k.env, "").strip()
    ]
    # trust_env=False: a proxy from the environment must never see (or break) a probe of this machine
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        probes = await asyncio.gather(*(_probe(client, port) for port in ports))
    found.extend(probe for probe in probes if probe is not None)
    return found


async def _probe(client: httpx.AsyncClient, port: int) -> DiscoveredProvider | None:
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        response = await client.get(f"{base_url}/models")
        if response.status_code != 200:
            return None
        document = response.json()
    except (httpx.HTTPError, ValueError):
        return None
    entries = document.get("data") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return None
    models = tuple(str(e["id"]) for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"])
    server_id, label = LOCAL_SERVERS.get(port, (f"local-{port}", "Local server"))
    return DiscoveredProvider(server_id, f"{label} (127.0.0.1:{port})", "openai", base_url, "local", models=models)
