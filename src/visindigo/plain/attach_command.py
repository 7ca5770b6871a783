"""/attach PATH: a file (text, image or PDF, told by its content) goes with the next message.

Reading and checking are the engine's (`engine.attachments`): every way a file can be wrong is one line and
nothing is attached; a text file over the limit offers its first part, asked as a yes/no line. What is
attached is listed by `/attach` alone and dropped by `/attach clear`; sending the message takes it along.
"""

from __future__ import annotations

import asyncio
import os
import shlex

from visindigo.engine import Dialog, Message, Role
from visindigo.engine.attachments import (
    AttachmentError,
    AttachmentTooLarge,
    read_attachment,
    send_problem,
    text_limit,
    window_room,
)
from visindigo.plain.session import YES, PlainSession
from visindigo.tui.workbench import Refused


def _path(argument: str) -> str:
    """The path as typed; quotes around a name with spaces are taken off (`/attach "my notes.md"`)."""
    text = argument.strip()
    if text[:1] in ("'", '"'):
        try:
            parts = shlex.split(text)
        except ValueError:
            return text
        return parts[0] if len(parts) == 1 else text
    return text


def _model_of(session: PlainSession, dialog: Dialog) -> object:
    center = session.center
    provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    if provider is None:
        return None
    return provider.get_model(dialog.model_id or provider.default_model)


async def attach(session: PlainSession, argument: str) -> None:
    pending = session.attachments
    path = _path(argument)
    out = session.out
    if not path:
        if not pending:
            out.line("Nothing is attached. /attach PATH attaches a file to your next message.")
            return
        out.line(f"Going with your next message ({len(pending)}):")
        for number, attachment in enumerate(pending, start=1):
            out.line(f"{number}. {attachment.label()}")
        return
    if path == "clear":
        pending.clear()
        out.line("Nothing is attached now.")
        return
    dialog = session.dialog
    model = _model_of(session, dialog)
    attached = sum(a.size for a in pending if a.kind == "text")
    room = window_room(model, dialog.messages, attached=attached)  # type: ignore[arg-type]
    limit = text_limit(session.center.settings, room)
    try:
        attachment = await asyncio.to_thread(read_attachment, path, start_folder=os.getcwd(), text_limit=limit,
                                             room=room)  # fmt: skip
    except AttachmentTooLarge as large:
        out.line(large.message)
        answer = await session.ask("Attach its first part instead? yes or no: ")
        if (answer or "").strip().lower() not in YES:
            out.line("Nothing was attached.")
            return
        attachment = large.first_part()
    except AttachmentError as error:
        raise Refused(f"Not attached: {error.message}.") from None
    problem = send_problem(session.center, dialog, [*pending, attachment])
    if problem:
        raise Refused(f"Not attached: {problem}.")
    pending.append(attachment)
    count = len(pending)
    out.line(f"Attached {attachment.label()}; it goes with your next message ({count} attached).", kind="status")


def with_attachments(session: PlainSession, text: str) -> Message | str:
    """The message to send: the text, with what is attached (refused in one line when the model cannot take it)."""
    if not session.attachments:
        return text
    problem = send_problem(session.center, session.dialog, session.attachments)
    if problem:
        raise Refused(f"Not sent: {problem}. /attach clear drops the attachments.")
    message = Message(Role.USER, text, attachments=list(session.attachments))
    session.attachments.clear()
    return message
