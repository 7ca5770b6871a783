"""What waits to go with a dialog's next message — attached files and MCP resources — and putting it in.

The pickers and the reading are the screen's (`main.resources`); what is pending, per dialog, is working
state, so it is the workbench's: `Workbench.send` attaches it to the user's next message of that
dialog, whoever sends, and refuses (keeping everything) when the dialog's model cannot take it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from visindigo.engine import Capability, Center, Dialog, Message
from visindigo.engine.attachments import Attachment
from visindigo.tui.workbench.events import AttachmentsChanged

if TYPE_CHECKING:
    from visindigo.engine.mcp.resources import ResourceContent

#: dialog id -> the resources its next message carries.
Pending = dict[str, list["ResourceContent"]]


class PendingFiles:
    """The files attached to each dialog's next message, in the order they were attached; every change is told
    (`AttachmentsChanged`) so the chips over the composer follow."""

    def __init__(self, emit: Callable[[AttachmentsChanged], None]) -> None:
        self._files: dict[str, list[Attachment]] = {}
        self._emit = emit

    def of(self, dialog_id: str) -> list[Attachment]:
        return list(self._files.get(dialog_id, ()))

    def add(self, dialog_id: str, attachment: Attachment) -> bool:
        """Attach a file; False (nothing changes) when the same content is already attached."""
        files = self._files.setdefault(dialog_id, [])
        if any(f.sha256 == attachment.sha256 and f.name == attachment.name for f in files):
            return False
        files.append(attachment)
        self._emit(AttachmentsChanged(dialog_id))
        return True

    def remove(self, dialog_id: str, index: int) -> Attachment | None:
        files = self._files.get(dialog_id, [])
        if not 0 <= index < len(files):
            return None
        removed = files.pop(index)
        self._emit(AttachmentsChanged(dialog_id))
        return removed

    def take(self, dialog_id: str) -> list[Attachment]:
        """The dialog's files, no longer pending (they go into the message being sent)."""
        files = self._files.pop(dialog_id, [])
        if files:
            self._emit(AttachmentsChanged(dialog_id))
        return files

    def text_bytes(self, dialog_id: str) -> int:
        """Bytes of text already attached: what the window-room estimate counts for the next file."""
        return sum(f.size for f in self._files.get(dialog_id, ()) if f.kind == "text")


def pending_problem(center: Center, dialog: Dialog, files: PendingFiles) -> str | None:
    """Why the dialog's pending files cannot be sent to its model (images to a text model, an image no provider
    limit fits), in one line; None when they can. Asked before anything is added, so a refusal keeps it all."""
    attached = files.of(dialog.id)
    if not attached:
        return None
    from visindigo.engine.attachments import send_problem

    return send_problem(center, dialog, attached)


def attach_pending(
    center: Center, dialog: Dialog, pending: Pending, message: Message, files: PendingFiles | None = None
) -> Message:
    """Put the dialog's pending files and resources into `message` (once: they are then no longer pending)."""
    if files is not None:
        message.attachments.extend(files.take(dialog.id))
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
