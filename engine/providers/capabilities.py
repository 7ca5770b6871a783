"""What a model can do, learnt from the server where the server can say it.

An OpenAI-compatible `/models` list names models and nothing else, so a capability mark is either told by the
server, written in the config, assumed, or learnt from an answer. Each model records where each of its marks
came from in `extra["capability_sources"]` (mark name -> source), which the model picker shows:

- OpenRouter's `/models` entries: `supported_parameters` ("tools", "reasoning") and
  `architecture.input_modalities` ("image") — read from the list itself. A list of input modalities says
  nothing about tools (llama-server lists `["text"]` for every text model): without `supported_parameters`
  tools stay assumed;
- Ollama: `POST /api/show` per model answers `capabilities` ("tools", "vision", "thinking");
- LM Studio: `GET /api/v0/models` gives `type` ("vlm" reads images) and `capabilities` ("tool_use");
- llama.cpp's own server (llama-server): `GET /props` (with `?model=` for a server that routes several) says
  whether its chat template renders tools (`chat_template_caps.supports_tools`; without it the tools never reach
  the model) and whether it reads images (`modalities.vision`);
- otherwise: text and tools are assumed (almost every chat endpoint accepts tools), and a server that rejects
  the tools field teaches otherwise (the run loop drops tools for that model and says so once).

Only a server that says "no tools" (or refuses the tools field) turns tools off, and the run loop tells the user
when a dialog's tools are left out for that reason.
Images are never assumed. Which server a provider is comes from its `server` setting (first-run setup writes it)
or, failing that, from the usual host and port.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..capability import Capability
from ..model_info import ModelInfo

if TYPE_CHECKING:  # httpx is imported only when a server is asked (run_loop imports this module at startup)
    from ._httpx import httpx
    from .base import Endpoint

__all__ = [
    "ASSUMED",
    "LISTING",
    "NO_DOCUMENTS",
    "NO_NAMED_TOOL_CHOICE",
    "SOURCES_KEY",
    "from_listing",
    "learn_from_server",
    "server_kind",
    "server_root",
    "sources",
    "takes_documents",
    "takes_named_tool_choice",
    "with_sources",
]

SOURCES_KEY = "capability_sources"
ASSUMED = "assumed"
#: The source of marks a `/models` entry states itself.
LISTING = "server: /models"
LLAMA_CPP_PROPS = "server: llama.cpp /props"
#: The window read from the same /props document (`default_generation_settings.n_ctx`: one slot's), so the
#: window costs no request of its own (`windows.py` reads the same keys).
LLAMA_CPP_SLOT_WINDOW = "server: llama.cpp /props (n_ctx of one slot)"

#: Servers known not to honour a named tool choice on either wire: llama-server reads only a string as the
#: chat-completions `tool_choice` (it logs "Wrong type supplied for parameter 'tool_choice'" and answers as if
#: "auto"), and on the Messages wire takes `{"type": "tool"}` as "any tool". So a named choice goes to it as
#: "required" / "any" with only the chosen tool offered.
NO_NAMED_TOOL_CHOICE = frozenset({"llama.cpp"})

#: Servers that speak the Messages wire but drop a PDF sent as a `document` block without a word: llama-server
#: read the question with a two-page PDF as 19 prompt tokens, the same PDF as text as 62
#: (tests/interop/test_llama_attachments.py). To them a PDF goes as its text, as `pdf_as_text = true` sends it.
NO_DOCUMENTS = frozenset({"llama.cpp"})

_NAMES = {
    Capability.TEXT: "text",
    Capability.TOOLS: "tools",
    Capability.IMAGE: "image",
    Capability.REASONING: "reasoning",
}


def with_sources(model: ModelInfo, capabilities: Capability, source: str) -> ModelInfo:
    """`model` with `capabilities`, every mark recorded as coming from `source`."""
    model.capabilities = capabilities | Capability.TEXT
    model.extra[SOURCES_KEY] = {name: source for flag, name in _NAMES.items() if flag in model.capabilities}
    return model


def sources(model: ModelInfo) -> dict[str, str]:
    """Where each of the model's marks came from ("config" for a model the config names without sources)."""
    recorded = model.extra.get(SOURCES_KEY)
    if isinstance(recorded, dict):
        return {str(k): str(v) for k, v in recorded.items()}
    return {}


def server_kind(provider: Endpoint) -> str:
    """ "ollama", "lmstudio", "openrouter", ... from the `server` setting, else guessed from host and port."""
    named = provider.settings.get("server")
    if isinstance(named, str) and named:
        return named
    try:
        parts = urlsplit(provider.base_url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:  # a malformed address: the request says so in its own words
        return ""
    if host.endswith("openrouter.ai"):
        return "openrouter"
    if port == 11434:
        return "ollama"
    if port == 1234:
        return "lmstudio"
    return ""


def takes_named_tool_choice(provider: Endpoint) -> bool:
    """Whether the provider's server honours a named tool choice (see `NO_NAMED_TOOL_CHOICE`)."""
    return server_kind(provider) not in NO_NAMED_TOOL_CHOICE


def takes_documents(provider: Endpoint) -> bool:
    """Whether a PDF goes to the provider as a Messages `document` block: the `pdf_as_text` setting when it is
    set, else every server but those known to drop documents (`NO_DOCUMENTS`)."""
    told = provider.settings.get("pdf_as_text")
    if isinstance(told, bool):
        return not told
    return server_kind(provider) not in NO_DOCUMENTS


def forced_choice_note(provider: Endpoint | None) -> str:
    """What the provider's server does with a forced tool choice, for the parameters screen; "" when it takes
    the choice as it is written (a user who picks one tool should know when the server is sent something else)."""
    if provider is None or takes_named_tool_choice(provider):
        return ""
    kind = server_kind(provider)
    return (
        f"{kind}'s server does not take a named tool: a chosen tool is sent as \"required\" with only that tool "
        "offered (first reply only)."
    )


def from_listing(model: ModelInfo, entry: Mapping[str, Any]) -> ModelInfo:
    """`model` with the marks its `/models` entry states (OpenRouter's shape), each with its source; unchanged
    when the entry states none. Tools come only from `supported_parameters`: without it they are assumed."""
    parameters = entry.get("supported_parameters")
    architecture = entry.get("architecture")
    modalities = architecture.get("input_modalities") if isinstance(architecture, dict) else None
    if not isinstance(parameters, list) and not isinstance(modalities, list):
        return model
    found = Capability.TEXT
    told = {"text": LISTING}
    if isinstance(parameters, list):
        if "tools" in parameters:
            found |= Capability.TOOLS
            told["tools"] = LISTING
        if "reasoning" in parameters or "include_reasoning" in parameters:
            found |= Capability.REASONING
            told["reasoning"] = LISTING
    else:
        found |= Capability.TOOLS
        told["tools"] = ASSUMED
    if isinstance(modalities, list) and "image" in modalities:
        found |= Capability.IMAGE
        told["image"] = LISTING
    model.capabilities = found
    model.extra[SOURCES_KEY] = told
    return model


async def learn_from_server(
    provider: Endpoint, models: Iterable[ModelInfo], *, timeout: float = 5.0, client: httpx.AsyncClient | None = None
) -> None:
    """Ask an Ollama, LM Studio or llama.cpp server what its models can do and set their capabilities (with
    sources).

    Models the server says nothing about are left as they are; a server that does not answer changes nothing.
    """
    import asyncio  # here: `visindigo ask` builds its first request with this module before asyncio is loaded

    kind = server_kind(provider)
    if kind == "llama.cpp":  # its /models entries state modalities only; /props says the rest
        pending = [model for model in models if set(sources(model).values()) <= {LISTING, ASSUMED}]
    else:
        pending = [model for model in models if not sources(model)]
    if kind not in ("ollama", "lmstudio", "llama.cpp") or not pending:
        return
    from ._httpx import httpx

    root = server_root(provider.base_url)
    own = client is None
    session = client or httpx.AsyncClient(timeout=timeout, trust_env=False)
    try:
        if kind == "ollama":
            answers = await asyncio.gather(*(_ollama_show(session, root, model.id) for model in pending))
            for model, learnt in zip(pending, answers, strict=True):
                if learnt is not None:
                    with_sources(model, learnt, "server: Ollama /api/show")
        elif kind == "llama.cpp":
            props = await asyncio.gather(*(_llama_cpp_props(session, root, model.id) for model in pending))
            for model, document in zip(pending, props, strict=True):
                if document is not None:
                    _apply_props(model, document)
        else:
            table = await _lmstudio_models(session, root)
            for model in pending:
                if model.id in table:
                    with_sources(model, table[model.id], "server: LM Studio /api/v0/models")
    finally:
        if own:
            await session.aclose()


def server_root(base_url: str) -> str:
    """The server's address without the API's `/v1` (where Ollama's, LM Studio's and llama.cpp's own routes are)."""
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


async def _ollama_show(client: httpx.AsyncClient, root: str, model_id: str) -> Capability | None:
    from ._httpx import httpx

    try:
        response = await client.post(f"{root}/api/show", json={"model": model_id})
        document = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    listed = document.get("capabilities") if isinstance(document, dict) else None
    if not isinstance(listed, list):
        return None
    found = Capability.TEXT
    if "tools" in listed:
        found |= Capability.TOOLS
    if "vision" in listed:
        found |= Capability.IMAGE
    if "thinking" in listed:
        found |= Capability.REASONING
    return found


async def _llama_cpp_props(client: httpx.AsyncClient, root: str, model_id: str) -> dict[str, Any] | None:
    from ._httpx import httpx

    try:
        response = await client.get(f"{root}/props", params={"model": model_id})
        document = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def _apply_props(model: ModelInfo, props: Mapping[str, Any]) -> None:
    """What llama-server's /props says of tools and images, over what the listing said or assumed."""
    told = dict(sources(model)) or {"text": ASSUMED}
    caps = props.get("chat_template_caps")
    supports_tools = caps.get("supports_tools") if isinstance(caps, dict) else None
    if isinstance(supports_tools, bool):
        if supports_tools:
            model.capabilities |= Capability.TOOLS
            told["tools"] = LLAMA_CPP_PROPS
        else:  # recorded although the mark is off: the run loop's notice says why
            model.capabilities &= ~Capability.TOOLS
            told["tools"] = f"{LLAMA_CPP_PROPS}: its chat template renders no tools"
    elif "tools" not in told:
        model.capabilities |= Capability.TOOLS
        told["tools"] = ASSUMED
    modalities = props.get("modalities")
    if isinstance(modalities, dict) and isinstance(modalities.get("vision"), bool):
        told.pop("image", None)
        if modalities["vision"]:
            model.capabilities |= Capability.IMAGE
            told["image"] = LLAMA_CPP_PROPS
        else:
            model.capabilities &= ~Capability.IMAGE
    model.capabilities |= Capability.TEXT
    model.extra[SOURCES_KEY] = told
    settings = props.get("default_generation_settings")
    slot = settings.get("n_ctx") if isinstance(settings, dict) else None
    if isinstance(slot, int) and not isinstance(slot, bool) and slot > 0:
        model.context_window = slot
        model.extra["context_source"] = LLAMA_CPP_SLOT_WINDOW


async def _lmstudio_models(client: httpx.AsyncClient, root: str) -> dict[str, Capability]:
    from ._httpx import httpx

    try:
        response = await client.get(f"{root}/api/v0/models")
        document = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return {}
    entries = document.get("data") if isinstance(document, dict) else None
    table: dict[str, Capability] = {}
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            continue
        if entry.get("type") == "embeddings":
            continue
        found = Capability.TEXT
        listed = entry.get("capabilities")
        if isinstance(listed, list) and "tool_use" in listed:
            found |= Capability.TOOLS
        if entry.get("type") == "vlm":
            found |= Capability.IMAGE
        table[entry["id"]] = found
    return table
