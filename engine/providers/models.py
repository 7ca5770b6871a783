"""A provider's model list: what the endpoint reports, merged with what the config says.

Most endpoints list model ids and nothing else, while the config knows capabilities, context windows and the
`starts_in_thinking` quirk. The merged list keeps every configured model as configured, in its order, and
adds the endpoint's other models with what the server says they can do (`capabilities.py`: OpenRouter's list,
Ollama's /api/show, LM Studio's /api/v0/models), else with default capabilities: text and tools (almost every
current chat endpoint accepts tools; one that refuses them is learnt from the refusal). Images are never assumed:
a model gets `IMAGE` only from the config or the server, so an image never goes to a model not known to read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..capability import Capability
from ..model_window import from_server, set_window, window
from ..provider import ModelInfo, Provider
from ..sanitize import clean_line
from .capabilities import ASSUMED, learn_from_server, sources, with_sources
from .windows import learn_windows

__all__ = ["DEFAULT_LISTED_CAPABILITIES", "ensure_models", "list_models", "merge_models"]

DEFAULT_LISTED_CAPABILITIES = Capability.TEXT | Capability.TOOLS


def merge_models(
    configured: Iterable[ModelInfo],
    listed: Iterable[ModelInfo],
    default: Capability = DEFAULT_LISTED_CAPABILITIES,
    default_source: str = ASSUMED,
) -> list[ModelInfo]:
    """Configured models first (unchanged), then listed ones the config does not name: with what the server said
    they can do when it said it (their `capability_sources` are set), else with `default` caps from
    `default_source`."""
    merged = list(configured)
    known = {model.id for model in merged}
    for model in listed:
        if model.id in known:
            continue
        known.add(model.id)
        copy = ModelInfo(
            model.id,
            name=model.name,
            capabilities=model.capabilities,
            context_window=model.context_window,
            max_output_tokens=model.max_output_tokens,
            extra=dict(model.extra),
        )
        merged.append(copy if sources(copy) else with_sources(copy, default, default_source))
    return merged


def _default_capabilities(provider: Provider) -> tuple[Capability, str]:
    names = provider.settings.get("default_capabilities")
    if isinstance(names, list | tuple) and names:
        try:
            return Capability.from_names(str(n) for n in names) | Capability.TEXT, "config: default_capabilities"
        except ValueError:
            pass
    return DEFAULT_LISTED_CAPABILITIES, ASSUMED


#: The longest model id or name kept from a model list.
MODEL_ID_LIMIT = 200


async def list_models(provider: Provider) -> list[ModelInfo]:
    """The endpoint's models merged with the configured ones; raises `ProviderError` when listing fails.

    The provider is not changed; assign the result to `provider.models` to keep it.
    """
    # Ids and names are outside text: a control character in one is removed here, where it enters (a server
    # that lists "gpt\x1b]52;…" gets a 404 for the cleaned id rather than a hostile string on every screen).
    listed = [
        replace(model, id=clean_line(model.id, MODEL_ID_LIMIT), name=clean_line(model.name, MODEL_ID_LIMIT))
        for model in await provider.adapter.list_models()
    ]
    listed = [model for model in listed if model.id]
    if provider.kind == "openai":
        await learn_from_server(provider, listed)
    merged = merge_models(provider.models, listed, *_default_capabilities(provider))
    told = {model.id: model for model in listed if from_server(model)}
    for model in merged:  # the server's window outranks the config's (it is the one in force)
        if model.id in told and model not in listed:
            set_window(model, *window(told[model.id]))
            if "owned_by" in told[model.id].extra:
                model.extra["owned_by"] = told[model.id].extra["owned_by"]
    if provider.kind == "openai":
        await learn_windows(provider, merged)
    return merged


async def ensure_models(provider: Provider, wanted_id: str = "") -> str:
    """List the endpoint's models once per provider, when the config named none or not `wanted_id`.

    Returns "" on success (or when nothing had to be listed) and the reason when listing failed, for the
    message that tells the user why no model could be picked.
    """
    if provider.models_listed:
        return ""
    if provider.models and (not wanted_id or provider.get_model(wanted_id) is not None):
        return ""
    from .base import ProviderError

    try:
        provider.models = await list_models(provider)
    except ProviderError as error:
        # with configured models the run can go on, and trying again every run would repeat the wait
        provider.models_listed = bool(provider.models)
        return str(error)
    provider.models_listed = True
    return ""
