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
    from visindigo.engine import Center, Dialog, Message, Prompt

#: The name stdin's text is attached under.
STDIN_NAME = "stdin"


@dataclass
class Attached:
    """A text attached to the question: stdin, or a file given with -f."""

    name: str
    text: str


@dataclass
class Question:
    text: str = ""
    attached: list[Attached] = field(default_factory=list)
    template: str | None = None
    values: dict[str, str] = field(default_factory=dict)

    def title(self, messages: list[Message]) -> str:
        """A new dialog's title: from the question, else from the template's text or name, else the attachments."""
        from visindigo.engine.storage.rows import make_title

        if self.text:
            return make_title(self.text)
        for message in messages:
            if message.name:
                return make_title(message.content) or message.name
        return ", ".join(attached.name for attached in self.attached)


def read_question(args: argparse.Namespace, stdin: TextIO | None) -> Question:
    """The question the command line describes; raises `UsageError` or `AskError` (a file that cannot be read)."""
    question = Question(text=" ".join(args.question).strip(), template=args.template)
    for item in args.var:
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise UsageError(f"-v takes NAME=VALUE, not {_shown(item)!r}")
        question.values[name.strip()] = value
    if question.values and question.template is None:
        raise UsageError("-v gives a template's values: name the template with --template NAME")
    piped = _read_stdin(stdin)
    if piped is not None:
        question.attached.append(attached_text(STDIN_NAME, piped))
    for path in args.file:
        question.attached.append(attached_text(str(path), read_file(path)))
    if not question.text and not question.attached and question.template is None:
        raise UsageError(
            'no question: give it as arguments (visindigo ask "…"), on stdin, or as a template (--template NAME)'
        )
    return question


def _read_stdin(stdin: TextIO | None) -> bytes | None:
    """What a pipe or a file on stdin holds; None for a terminal (the user types the question as arguments),
    a closed stdin, or nothing at all."""
    if stdin is None:
        return None
    try:
        if stdin.isatty():
            return None
        source: BinaryIO = stdin.buffer
        data = source.read()
    except (OSError, ValueError, AttributeError):  # fd 0 closed, or a stream without bytes
        return None
    return data if data.strip() else None


def build_messages(center: Center, dialog: Dialog, question: Question) -> list[Message]:
    """The messages to append: the filled template (if any), then the question, with the attachments on the last."""
    from visindigo.engine import Message, Role

    messages: list[Message] = []
    if question.template is not None:
        messages.append(fill_template(center, dialog, question.template, question.values))
    if question.text or not messages:
        messages.append(Message(Role.USER, question.text))
    last = messages[-1]
    last.content = attach_texts(last.content, question.attached)
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


# --- attached texts ---------------------------------------------------------------------------------------------
# PLACEHOLDER, to be replaced by the engine's attachment API (engine/attachments, branch `attach`) once it is
# merged: these functions read a text the simplest way and put it into the message as a fenced block, so that
# stdin and -f work meanwhile. Images, PDFs, the composer's size rule and the stored-once attachments come with
# that API; only `attached_text`, `read_file` and `attach_texts` change.

#: The most text attached from one source (the composer's default limit).
TEXT_LIMIT = 100_000


def read_file(path: Path) -> bytes:
    """The bytes of a file given with -f; `AskError` says why it cannot be attached."""
    import stat

    shown = _shown(str(path))
    try:
        info = path.stat()
    except FileNotFoundError:
        raise AskError(f"cannot attach {shown}: there is no such file") from None
    except OSError as error:
        raise AskError(f"cannot attach {shown}: {error.strerror or error}") from None
    if stat.S_ISDIR(info.st_mode):
        raise AskError(f"cannot attach {shown}: it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise AskError(f"cannot attach {shown}: it is not a regular file (a pipe or a device)")
    if info.st_size > TEXT_LIMIT:
        raise AskError(f"cannot attach {shown}: {info.st_size:,} bytes, over the {TEXT_LIMIT:,}-byte limit")
    try:
        with open(path, "rb") as handle:
            return handle.read(TEXT_LIMIT + 1)
    except OSError as error:
        raise AskError(f"cannot attach {shown}: {error.strerror or error}") from None


def attached_text(name: str, data: bytes) -> Attached:
    """`data` as an attached text; `AskError` for what is not UTF-8 text or too long."""
    shown = _shown(name)
    if len(data) > TEXT_LIMIT:
        raise AskError(f"cannot attach {shown}: {len(data):,} bytes, over the {TEXT_LIMIT:,}-byte limit")
    if b"\0" in data:
        raise AskError(f"cannot attach {shown}: it is not text (only text can be attached here)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise AskError(f"cannot attach {shown}: it is not UTF-8 text") from None
    return Attached(name, text)


def attach_texts(content: str, attached: list[Attached]) -> str:
    """`content` followed by each attached text as a fenced block headed by its name."""
    parts = [content] if content else []
    for item in attached:
        longest = run = 0
        for char in item.text:
            run = run + 1 if char == "`" else 0
            longest = max(longest, run)
        fence = "`" * max(3, longest + 1)
        parts.append(f"{item.name}:\n{fence}\n{item.text.rstrip(chr(10))}\n{fence}")
    return "\n\n".join(parts)
