"""The question leaves first: `visindigo ask` sends the run's first request before asyncio and httpx are loaded.

Importing the asynchronous HTTP stack takes longer than everything else `ask` does before its question leaves
(bench/ask_start.py). So, when it is certain what the run's first network request will be, `send_first` builds
that request with the run loop's own code (`engine.run_setup`, the wire formats' body modules) and writes it to
a socket (`engine.providers.early`); the run then finds the request it was about to send already on the wire and
reads its answer from there (`HTTPTransport.open_stream` compares URL, headers and body first; any difference
and it sends its own). Certain means: an http or https provider of the openai or anthropic kind (not Ollama, whose
adapter speaks its own API), no proxy in the environment, no tools and no MCP servers (their listing comes first
and changes the request), no image or PDF anywhere in the request (scaled or read in the run), the model known
without listing the provider's models, and no automatic compaction that could be due for a continued dialog.
Otherwise nothing is sent here, and the run goes as it always did.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from visindigo.engine import Center, Dialog, Message, Provider

__all__ = ["send_first"]


def send_first(
    center: Center, args: argparse.Namespace, dialog: Dialog, messages: Sequence[Message], continued: bool
) -> str:
    """Send the run's first request now when it is certain what it is; "" when sent, else why it was not."""
    from visindigo.engine.providers import early

    if getattr(args, "demo", False):
        return "the demo answers in this process"
    if early.proxy_in_environment():
        return "a proxy is set in the environment"
    if continued and _auto_compacts(center):
        return "automatic compaction may be due first"
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    if provider is None:
        return "no provider"
    why = _unsure(provider, dialog, messages)
    if why:
        return why
    from visindigo.engine.attachments.errors import AttachmentError
    from visindigo.engine.capability import Capability
    from visindigo.engine.provider import NoModelAvailable
    from visindigo.engine.providers.headers import request_headers
    from visindigo.engine.providers.request import ProviderError
    from visindigo.engine.run_setup import choose_model, round_request, system_prompt

    try:
        model = choose_model(provider, dialog.capability_requirement | Capability.TEXT, False, dialog.model_id)
        request = round_request(
            provider,
            model,
            system_prompt(dialog),
            {},
            dialog,
            first_round=True,
            messages=[*dialog.messages, *messages],
        )
        if provider.kind == "anthropic":
            from visindigo.engine.providers import anthropic_body as wire
            from visindigo.engine.providers.capabilities import takes_documents, takes_named_tool_choice

            url = wire.messages_url(provider)
            body = wire.build_body(
                request, named_tool_choice=takes_named_tool_choice(provider), documents=takes_documents(provider)
            )
            own = wire.own_headers(provider)
        else:
            from visindigo.engine.providers import openai_body as wire  # type: ignore[no-redef]
            from visindigo.engine.providers.capabilities import takes_named_tool_choice

            url = wire.chat_url(provider)
            body = wire.build_body(
                request,
                stream_usage=provider.settings.get("stream_usage", True) is not False,
                named_tool_choice=takes_named_tool_choice(provider),
            )
            own = wire.own_headers(provider)
        headers = request_headers(provider, own, "text/event-stream", ProviderError)
    except (NoModelAvailable, ProviderError, AttachmentError, ValueError):
        return "the run decides (a model to pick, a key or a file it refuses)"
    sent = early.send(url, headers, body, connect_timeout=provider.connect_timeout, user_agent=_httpx_agent())
    return "" if sent is not None else "not an address httpx sends as written, no connection, or a certificate refused"


def _unsure(provider: Provider, dialog: Dialog, messages: Sequence[Message]) -> str:
    """Why the run's first network request might not be this chat request, or not as built here; "" if it is."""
    from visindigo.engine.providers.capabilities import server_kind

    if provider.kind not in ("openai", "anthropic"):
        return f"a provider of kind {provider.kind!r}"
    try:
        if provider.kind == "openai" and server_kind(provider) == "ollama":
            return "Ollama is asked through its own API"
    except ValueError:
        return "an address that does not parse"
    if dialog.effective_functions() or any(server.enabled for server in dialog.effective_mcp_servers()):
        return "tools are offered"
    wanted = dialog.model_id
    if not provider.models_listed and not (provider.models and (not wanted or provider.get_model(wanted))):
        return "the provider's models are listed first"  # what `ensure_models` does before the request
    if any(map(_not_text, messages)) or any(map(_not_text, dialog.messages)):
        return "an image or a PDF goes with the request"
    return ""


def _not_text(message: Message) -> bool:
    return bool(message.images) or any(attachment.kind != "text" for attachment in message.attachments)


def _auto_compacts(center: Center) -> bool:
    """`[context] auto_compact` is on (as `engine.context.compaction` reads it): a continued dialog may be
    compacted — with a request of its own — before the question goes."""
    settings = center.settings.get("context")
    return isinstance(settings, dict) and bool(settings.get("auto_compact"))


def _httpx_agent() -> str:
    """The User-Agent httpx sends, read from its version file without importing httpx."""
    from importlib.util import find_spec
    from pathlib import Path

    try:
        spec = find_spec("httpx")
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        text = (Path(folders[0]) / "__version__.py").read_text(encoding="utf-8") if folders else ""
    except (OSError, ValueError, ImportError):
        return ""
    for line in text.splitlines():
        name, _, value = line.partition("=")
        if name.strip() == "__version__":
            return f"python-httpx/{value.strip().strip(chr(34) + chr(39))}"
    return ""
