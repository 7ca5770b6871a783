"""Which models may receive a question's images, and the line that refuses the others.

Images go only to models marked `image`. A question with images for a model without the mark is refused before
anything is sent, with a line naming a configured model that takes images — the run loop says it when it
prepares a run, and the composer can ask first (`send_problem`) so the user changes the model before sending.
Images of earlier questions do not bind the dialog: a text model answering a follow-up reads a note that an
image was left out (`wire`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..capability import Capability
from ..message import Message, Role
from ..sanitize import clean_line
from .errors import AttachmentError
from .limits import image_limits_for
from .model import Attachment, AttachmentKind

if TYPE_CHECKING:
    from ..dialog import Dialog
    from ..lookup import DialogHost
    from ..provider import Provider

__all__ = ["check_images_fit", "image_model_hint", "image_refusal", "question_has_images", "send_problem"]


def question_has_images(messages: Sequence[Message]) -> bool:
    """Whether the question being answered (the messages after the last answer) carries images."""
    for message in reversed(messages):
        if message.role is Role.ASSISTANT:
            return False
        if message.images or any(a.kind is AttachmentKind.IMAGE for a in message.attachments):
            return True
    return False


def image_model_hint(providers: Iterable[Provider]) -> str:
    """ "'gpt-4o' of OpenAI" — the first configured model that takes images — or "" when none does."""
    for provider in providers:
        for model in provider.models:
            if Capability.IMAGE in model.capabilities:
                return f"{clean_line(model.label, 60)!r} of {clean_line(provider.name, 40)}"
    return ""


def image_refusal(provider: Provider, model_id: str, providers: Iterable[Provider]) -> str:
    """The one line that refuses to send images to the model that would answer (`model_id`, else the provider's
    default or first model), which has no `image` mark."""
    model = provider.get_model(model_id or provider.default_model) or next(iter(provider.models), None)
    name = model.label if model is not None else model_id
    who = (
        f"{clean_line(name, 60)!r} takes no images"
        if name
        else f"no model of {clean_line(provider.name, 40)} takes images"
    )
    hint = image_model_hint(providers)
    if hint:
        return f"{who}: pick another model that does, such as {hint}, or remove the images from the question"
    return (
        f"{who}, and no configured model is marked as taking them: pick another model or provider, mark a model "
        "with the `image` capability in the config, or remove the images from the question"
    )


def check_images_fit(messages: Iterable[Message], provider: Provider) -> None:
    """Bring every attached image under the provider's limits now (the copies are cached for the request), so
    one that cannot be is refused before a request is made; raises `AttachmentError`."""
    images = [a for m in messages for a in m.attachments if a.kind is AttachmentKind.IMAGE]
    if not images:
        return
    from .images import prepare_image

    limits = image_limits_for(provider.kind, provider.settings)
    for attachment in images:
        prepare_image(attachment, limits)


def send_problem(center: DialogHost, dialog: Dialog, attachments: Sequence[Attachment] = ()) -> str | None:
    """Why sending `attachments` in `dialog` now would be refused, in one line; None when nothing stands in the way
    as far as the configured models tell (a provider whose models are not listed yet is left to the run).

    What the composer asks before it sends, so a refused question stays in the composer with its chips.
    """
    if not any(a.kind is AttachmentKind.IMAGE for a in attachments):
        return None
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    if provider is None or not provider.models:
        return None
    if not any(Capability.IMAGE in m.capabilities for m in provider.models):
        return image_refusal(provider, dialog.model_id, center.providers)
    # The run answers with the dialog's model when it takes images, else with the provider's model that does
    # (saying so): either way the images must fit this provider's limits.
    try:
        check_images_fit([Message(Role.USER, attachments=list(attachments))], provider)
    except AttachmentError as error:
        return error.message
    return None
