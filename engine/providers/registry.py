"""Which adapter serves which provider kind.

The adapters import httpx and their wire-format code only when a provider of their kind is first used, so
a Center with only the demo provider never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Endpoint, ProviderError

if TYPE_CHECKING:
    from .base import Adapter

#: The kinds a provider's `kind` may name in the config.
KINDS = ("openai", "anthropic", "scripted")


def create_adapter(provider: Endpoint) -> Adapter:
    """A new adapter for `provider`; raises `ProviderError` naming the valid kinds for an unknown one."""
    if provider.kind == "openai":
        from .capabilities import server_kind

        try:
            ollama = server_kind(provider) == "ollama"
        except ValueError:  # an address that does not parse: the adapter's first request says what is wrong
            ollama = False
        if ollama and provider.settings.get("ollama_native", True) is not False:
            from .ollama import OllamaAdapter  # its own /api/chat: the only way to set the window (num_ctx)

            return OllamaAdapter(provider)
        from .openai import OpenAIAdapter

        return OpenAIAdapter(provider)
    if provider.kind == "anthropic":
        from .anthropic import AnthropicAdapter

        return AnthropicAdapter(provider)
    if provider.kind == "scripted":
        raise ProviderError(
            f"provider {provider.name!r} is of kind 'scripted' but has no script; scripted providers are made in "
            "code (scripted_provider or demo_provider), not in the config"
        )
    raise ProviderError(f"provider {provider.name!r} has unknown kind {provider.kind!r}; use one of: openai, anthropic")
