"""What a run decides before its first request, in code that needs no event loop: the model, the system prompt,
and the request of a round.

The run loop (`run_loop`) uses these; so does `visindigo ask`, which builds its first request with exactly them
and sends it before asyncio and httpx are loaded (`engine.providers.early`). Importing this module loads
neither.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from .capability import Capability
from .providers.request import ChatRequest

if TYPE_CHECKING:
    from .dialog import Dialog
    from .function import Function
    from .message import Message
    from .provider import ModelInfo, Provider

__all__ = ["choose_model", "round_request", "system_prompt"]


def choose_model(provider: Provider, required: Capability, wants_tools: bool, preferred_id: str) -> ModelInfo:
    """The dialog's model when it meets the requirement; otherwise prefer one that also takes tools.

    The user's explicit choice wins over tool support: a chosen text-only model answers without tools rather
    than being silently replaced.
    """
    from .provider import NoModelAvailable

    preferred = provider.get_model(preferred_id) if preferred_id else None
    if preferred is not None and required in preferred.capabilities:
        return preferred
    if wants_tools:
        try:
            return provider.pick_model(required | Capability.TOOLS, preferred_id)
        except NoModelAvailable:
            pass
    return provider.pick_model(required, preferred_id)


def system_prompt(dialog: Dialog, server_notes: Iterable[str] = ()) -> str:
    """The dialog's skills, then what its MCP servers ask the model to know, one block each."""
    return "\n\n".join(
        [skill.content.strip() for skill in dialog.effective_skills() if skill.content.strip()] + list(server_notes)
    )


def round_request(
    provider: Provider,
    model: ModelInfo,
    system: str,
    functions: Mapping[str, Function],
    dialog: Dialog,
    *,
    first_round: bool,
    messages: Sequence[Message] | None = None,
) -> ChatRequest:
    """The request of one round of a run in `dialog` (its messages unless `messages` are given)."""
    parameters = dialog.parameters
    if not functions:
        parameters.pop("tool_choice", None)  # a tool choice without tools is an error on every API
    return ChatRequest(
        model=model,
        system=system,
        messages=dialog.messages if messages is None else list(messages),
        tools=[function.declaration() for function in functions.values()],
        settings=dict(provider.settings),
        provider_id=provider.id,
        parameters=parameters,
        first_round=first_round,
    )
