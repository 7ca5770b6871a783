"""MCP resources waiting to go with a dialog's next message (attached with alt+a or `@`), and putting them in.

The picker and the reading are the screen's (`main.resources`); what is pending, per dialog, is working
state, so it is the workbench's: `Workbench.send` attaches it to the user's next message of that dialog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from visindigo.engine import Capability, Center, Dialog, Message

if TYPE_CHECKING:
    from visindigo.engine.mcp.resources import ResourceContent

#: dialog id -> the resources its next message carries.
Pending = dict[str, list["ResourceContent"]]


def attach_pending(center: Center, dialog: Dialog, pending: Pending, message: Message) -> Message:
    """Put the dialog's pending resources into `message` (once: they are then no longer pending)."""
    contents: list[ResourceContent] = pending.pop(dialog.id, [])
    if contents:
        from visindigo.engine.mcp.resources import attach

        images = model_takes_images(center, dialog)
        for content in contents:
            attach(message, content, images=images)
    return message


def model_takes_images(center: Center, dialog: Dialog) -> bool:
    """Whether the dialog's model (as far as it is known) accepts images; unknown models are asked to."""
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    if provider is None:
        return False
    model = next((m for m in provider.models if m.id == dialog.model_id), None)
    if model is None:
        return any(Capability.IMAGE in m.capabilities for m in provider.models) or not provider.models
    return Capability.IMAGE in model.capabilities
