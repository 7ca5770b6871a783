"""Running a server's sampling request on the client's model: which model, and the completion itself.

The model comes from the provider of the dialog whose tool call the server is serving (else the default
provider): the first of the server's hints that is a substring of one of that provider's model ids wins, else
the dialog's own model. Nothing here asks the user — `client_side` does that before calling `sample`.
"""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..capability import Capability
from ..message import Image, Message, Role
from ..parameters import ParameterError, clean_parameters
from ..providers.base import ChatRequest, FinishPart, ProviderError, TextPart, UsagePart
from ..providers.models import ensure_models
from .host import SamplingRequest

if TYPE_CHECKING:
    from ..dialog import Dialog
    from ..lookup import DialogHost
    from ..provider import ModelInfo, Provider

#: A request for more output tokens than this is cut down to it (a server cannot make the user pay for a novel).
MAX_SAMPLING_TOKENS = 16_384


class SamplingFailed(Exception):
    """The completion could not be made; the message is returned to the server as the protocol's error."""


@dataclass(frozen=True, slots=True)
class SamplingOutcome:
    text: str
    model_id: str
    stop_reason: str
    input_tokens: int = 0
    output_tokens: int = 0


def _provider_for(center: DialogHost | None, dialog: Dialog | None) -> Provider:
    if center is None:
        raise SamplingFailed("no provider is available for sampling (this dialog belongs to no Center)")
    provider = center.get_provider(dialog.provider_id) if dialog is not None and dialog.provider_id else None
    provider = provider or center.default_provider
    if provider is None:
        raise SamplingFailed("no provider is configured, so the client has no model to sample with")
    return provider


async def choose_model(
    request: SamplingRequest, center: DialogHost | None, dialog: Dialog | None
) -> tuple[Provider, ModelInfo]:
    """The provider and model a sampling request would run on (shown to the user before approval)."""
    provider = _provider_for(center, dialog)
    await ensure_models(provider, dialog.model_id if dialog is not None else "")
    required = Capability.TEXT
    if any(message.images for message in request.messages):
        required |= Capability.IMAGE
    for hint in request.model_hints:
        hint_lower = hint.lower()
        for model in provider.models:
            if hint_lower and hint_lower in model.id.lower() and required in model.capabilities:
                return provider, model
    try:
        return provider, provider.pick_model(required, dialog.model_id if dialog is not None else "")
    except Exception as error:
        raise SamplingFailed(f"{provider.name} has no model for this request: {error}") from None


def sampling_messages(request: SamplingRequest) -> list[Message]:
    messages = []
    for item in request.messages:
        role = Role.ASSISTANT if item.role == "assistant" else Role.USER
        images = [Image(mime_type=mime, data=data) for mime, data in item.images]
        messages.append(Message(role, item.text, images=images))
    return messages


def sampling_parameters(request: SamplingRequest) -> dict[str, Any]:
    """The server's limit, temperature and stop sequences as a request's generation parameters.

    They go where the adapters read a dialog's parameters (a provider setting of the same name is not sent),
    checked the same way; a value no provider would take is the server's error, said to it, not sent.
    """
    try:
        return clean_parameters(
            {
                "max_tokens": max(1, min(request.max_tokens or MAX_SAMPLING_TOKENS, MAX_SAMPLING_TOKENS)),
                "temperature": request.temperature,
                "stop": list(request.stop_sequences),
            }
        )
    except ParameterError as error:
        raise SamplingFailed(f"the request cannot be sent to a model: {error}") from None


async def sample(request: SamplingRequest, center: DialogHost | None, dialog: Dialog | None) -> SamplingOutcome:
    """Ask the chosen model for the completion; raises `SamplingFailed` with a reason for the server."""
    provider, model = await choose_model(request, center, dialog)
    chat = ChatRequest(
        model=model,
        system=request.system_prompt,
        messages=sampling_messages(request),
        settings=dict(provider.settings),
        provider_id=provider.id,
        parameters=sampling_parameters(request),
    )
    text: list[str] = []
    usage: UsagePart | None = None
    finish: FinishPart | None = None
    try:
        async with aclosing(provider.adapter.stream(chat)) as parts:
            async for part in parts:
                if type(part) is TextPart:
                    text.append(part.text)
                elif type(part) is UsagePart:
                    usage = part
                elif type(part) is FinishPart:
                    finish = part
    except ProviderError as error:
        raise SamplingFailed(str(error)) from None
    if finish is None:
        raise SamplingFailed(f"{provider.name}: the answer ended before the model finished")
    reason = finish.reason
    stop = "endTurn"
    if reason in ("length", "max_tokens"):
        stop = "maxTokens"
    elif reason == "stop_sequence":
        stop = "stopSequence"
    return SamplingOutcome(
        "".join(text),
        model.id,
        stop,
        usage.input_tokens if usage else 0,
        usage.output_tokens if usage else 0,
    )
