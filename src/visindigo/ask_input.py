"""What `visindigo ask` asks: the arguments, stdin, `-f` files and `--template`, as the dialog's new messages.

Everything is read and checked before the store is opened, so a mistyped option or a missing file costs
nothing and leaves nothing behind. A template is filled as its form fills it (the same checks, the same
defaults), only without the form: a missing required value is an error that names it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from .ask_errors import AskError, UsageError

if TYPE_CHECKING:
    from visindigo.engine import Center, Dialog, Message, Prompt, Provider
    from visindigo.engine.attachments import Attachment

#: The name stdin's bytes are attached under.
STDIN_NAME = "stdin"


@dataclass
class Question:
    text: str = ""
    #: What a pipe or a file on stdin held (attached as a file named "stdin"), or None.
    stdin: bytes | None = None
    files: list[Path] = field(default_factory=list)
    template: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    #: --first-part: a text over the limit is attached cut to it (the model is told) instead of refused.
    first_part: bool = False

    def title(self, messages: list[Message]) -> str:
        """A new dialog's title: from the question, else from the template's text or name, else the attachments."""
        from visindigo.engine.storage.rows import make_title

        if self.text:
            return make_title(self.text)
        for message in messages:
            if message.name:
                return make_title(message.content) or message.name
        return ", ".join(attachment.display_name for message in messages for attachment in message.attachments)


def read_question(args: argparse.Namespace, stdin: TextIO | None) -> Question:
    """The question the command line describes (its files are read by `build_messages`); raises `UsageError`."""
    question = Question(text=" ".join(args.question).strip(), template=args.template)
    for item in args.var:
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"-v takes NAME=VALUE, not {_shown(item)!r}")
        question.values[name.strip()] = value
    if question.values and question.template is None:
        raise UsageError("-v gives a template's values: name the template with --template NAME")
    question.stdin = _read_stdin(stdin)
    question.files = list(args.file)
    question.first_part = args.first_part
    if not question.text and question.stdin is None and not question.files and question.template is None:
        raise UsageError(
            'no question: give it as arguments (visindigo ask "…"), on stdin, or as a template (--template NAME)'
        )
    return question


def _read_stdin(stdin: TextIO | None) -> bytes | None:
    """What a pipe or a file on stdin holds; None for a terminal (the user types the question as arguments),
    a closed stdin, or nothing at all."""
    if stdin is None:
        return None
    from visindigo.engine.attachments.limits import MAX_FILE_BYTES

    try:
        if stdin.isatty():
            return None
        source: BinaryIO = stdin.buffer
        data = source.read(MAX_FILE_BYTES + 1)  # one byte more than is ever attached: enough to refuse it
    except (OSError, ValueError, AttributeError):  # fd 0 closed, or a stream without bytes
        return None
    return data if data.strip() else None


def build_messages(center: Center, dialog: Dialog, question: Question) -> list[Message]:
    """The messages to append: the filled template (if any), then the question, with the attachments on the last.

    `dialog` is where the question goes (not yet holding it): its model's window bounds how much text may be
    attached, and a model that takes no images refuses them here, before anything is appended or sent.
    """
    from visindigo.engine import Message, Role

    messages: list[Message] = []
    if question.template is not None:
        messages.append(fill_template(center, dialog, question.template, question.values))
    if question.text or not messages:
        messages.append(Message(Role.USER, question.text))
    attachments = read_attachments(center, dialog, question)
    if attachments:
        from visindigo.engine.attachments import send_problem

        problem = send_problem(center, dialog, attachments)
        if problem:
            raise AskError(problem)
        messages[-1].attachments = attachments
    return messages


# --- templates --------------------------------------------------------------------------------------------------


def fill_template(center: Center, dialog: Dialog, name: str, values: dict[str, str]) -> Message:
    """The template `name` filled with `values` as its form would fill it; `UsageError` names what is wrong."""
    from visindigo.engine.templates import UserContext
    from visindigo.engine.templates.system import is_system_variable

    prompt = find_template(center, dialog, name)
    fields = prompt.fields()
    known = [spec.name for spec in fields]
    unknown = [given for given in values if given not in known and not is_system_variable(given)]
    if unknown:
        listed = ", ".join(known) if known else "none"
        raise UsageError(f"the template {_shown(name)!r} has no field {_shown(unknown[0])!r} (its fields: {listed})")
    missing = [spec.name for spec in fields if spec.required and spec.default is None and spec.name not in values]
    if missing:
        needed, first = ", ".join(missing), missing[0]
        raise UsageError(f"the template {_shown(name)!r} needs a value for {needed} (give it with -v {first}=VALUE)")
    problems = [problem for spec in fields if spec.name in values and (problem := spec.check(values[spec.name]))]
    if problems:
        raise UsageError(f"the template {_shown(name)!r}: " + " ".join(problems))
    chosen = dict(values)
    for spec in fields:  # an unticked checkbox says "false", as the form sends it
        if spec.type == "checkbox" and spec.name not in chosen and spec.default is None:
            chosen[spec.name] = "false"
    config = center.config
    user = UserContext.from_environment(config.user if config is not None else None)
    return prompt.render(chosen, user=user)


def find_template(center: Center, dialog: Dialog, name: str) -> Prompt:
    """The local template of that name (the dialog's, the library folder's, the Center's, as the app ranks them)."""
    from visindigo.engine.templates.library import TemplateLibrary

    folder = str(center.settings.get("prompt_dir") or "")
    if not folder and center.paths is not None:
        folder = str(center.paths.prompt_dir)
    entries = TemplateLibrary(folder).entries(dialog, center) if folder else []
    for entry in entries:
        if entry.name == name:
            template = entry.template
            assert not hasattr(template, "server")  # local entries only: MCP prompts are listed apart
            return template  # type: ignore[return-value]
    names = ", ".join(_shown(entry.name) for entry in entries[:12]) or "none yet"
    more = f" and {len(entries) - 12} more" if len(entries) > 12 else ""
    raise UsageError(f"there is no template named {_shown(name)!r} (templates: {names}{more})")


def _shown(text: str) -> str:
    from visindigo.engine.sanitize import clean_line

    return clean_line(text, 60)


# --- attachments ------------------------------------------------------------------------------------------------


def read_attachments(center: Center, dialog: Dialog, question: Question) -> list[Attachment]:
    """stdin and the -f files as attachments, by the composer's rules (`engine.attachments`): `AskError` names the
    first that cannot be attached; a text over the limit is attached in part only with --first-part."""
    import os

    from visindigo.engine.attachments import text_limit, window_room

    provider = _provider_of(center, dialog)
    model = provider.get_model(dialog.model_id or provider.default_model) if provider is not None else None
    room = window_room(model, dialog.messages)
    limit = text_limit(provider.settings if provider is not None else None, room)  # the provider's, as in the app
    attachments = []
    if question.stdin is not None:
        attachments.append(_piped(question.stdin, limit, question.first_part))
    for path in question.files:
        attachments.append(_read(path, os.getcwd(), limit, question.first_part))
    return attachments


def _read(path: str | Path, start_folder: str, limit: int, first_part: bool) -> Attachment:
    from visindigo.engine.attachments import AttachmentError, AttachmentTooLarge, read_attachment

    try:
        return read_attachment(path, start_folder=start_folder, text_limit=limit)
    except AttachmentTooLarge as too_large:
        if first_part:
            return too_large.first_part()
        raise AskError(f"cannot attach: {too_large.message} (pass --first-part for that)") from None
    except AttachmentError as error:
        raise AskError(f"cannot attach: {error.message}") from None


def _piped(data: bytes, limit: int, first_part: bool) -> Attachment:
    """stdin's bytes as an attachment named "stdin", read by the same rules as a file: they are written to a
    private temporary file and read back from it (a text, an image or a PDF, decided by the content)."""
    import dataclasses
    import tempfile

    with tempfile.TemporaryDirectory(prefix="visindigo-ask-") as folder:  # mode 0700: only this user reads it
        (Path(folder) / STDIN_NAME).write_bytes(data)
        attachment = _read(STDIN_NAME, folder, limit, first_part)
    return dataclasses.replace(attachment, name=STDIN_NAME)


def _provider_of(center: Center, dialog: Dialog) -> Provider | None:
    """The provider the dialog will ask (its settings hold the text limit; its models, the window)."""
    return center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
