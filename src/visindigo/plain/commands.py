"""The `/` commands: what each is called, what it takes, what it does, and completing them on tab.

A line that does not begin with `/` is a message to the model; `//` at the start sends a line that begins
with `/`. Whatever a command cannot do now is one line saying why (`Refused`); nothing else that goes wrong
costs more than one line either (`handle`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from visindigo.plain import attach_command, compare_command, dialog_commands, form, model_commands
from visindigo.plain.reader import BLOCK
from visindigo.plain.session import PlainSession
from visindigo.tui.workbench import Refused

log = logging.getLogger(__name__)

Handler = Callable[[PlainSession, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    usage: str
    help: str
    run: Handler


async def _help(session: PlainSession, argument: str) -> None:
    session.out.line(
        f"Type a message and Enter to send it; {BLOCK} on a line of its own begins and ends several lines."
    )
    session.out.line("ctrl+c stops an answer (what arrived is kept); ctrl+d or /quit leaves. The commands:")
    for command in COMMANDS.values():
        session.out.line(f"{command.usage}: {command.help}")
    completing = "Tab completes a command, and a" if session.tab_completes else "A"
    session.out.line(f"{completing} unique beginning is enough (/reg is /regenerate). // at the start sends a line "
                     "that begins with /.")  # fmt: skip


_TABLE = [
    Command("new", "/new", "start a new dialog", dialog_commands.new),
    Command("dialogs", "/dialogs [WORDS]", "list the saved dialogs, numbered (only those whose line has WORDS)",
            dialog_commands.dialogs),
    Command("open", "/open N", "open dialog N of /dialogs and read it out", dialog_commands.open_dialog),
    Command("history", "/history [N]", "read out this dialog (its last N messages)", dialog_commands.history),
    Command("regenerate", "/regenerate [N]", "another answer (to message N) in a new branch",
            dialog_commands.regenerate),
    Command("edit", "/edit [N]", "change your message N (else your last) and ask again, in a new branch",
            dialog_commands.edit),
    Command("branches", "/branches", "the alternatives where this dialog's branches part, numbered",
            dialog_commands.branches),
    Command("branch", "/branch N", "show alternative N of /branches", dialog_commands.branch),
    Command("model", "/model [N or ID]", "list the models, numbered; with N or an id, choose one for this dialog",
            model_commands.model),
    Command("template", "/template [NAME or N]", "list the templates; with a name, fill its form field by field",
            form.template),
    Command("compare", "/compare [blind] A B [C D]", "ask 2 to 4 models (numbers from /model, or ids) one question",
            compare_command.compare),
    Command("attach", "/attach [PATH or clear]", "attach a file (text, image, PDF) to your next message; alone: list",
            attach_command.attach),
    Command("export", "/export [FILE]", "write this dialog to FILE (Markdown; JSON for .json) or a new file here",
            dialog_commands.export),
    Command("help", "/help", "this list", _help),
    Command("quit", "/quit", "leave (ctrl+d too)", dialog_commands.quit_session),
]  # fmt: skip
COMMANDS = {command.name: command for command in _TABLE}


async def handle(session: PlainSession, line: str) -> None:
    """Carry out one line the user typed, and wait for the answer it asked for."""
    session.current = asyncio.current_task()
    try:
        text = line.strip()
        if text.startswith("/") and not text.startswith("//"):
            word, _, argument = text[1:].partition(" ")
            command = find(word)
            await command.run(session, argument)
        elif text:
            message = line[line.index("/") + 1 :] if text.startswith("//") else line
            await session.send(attach_command.with_attachments(session, message))
        await session.wait_for_runs()
    except Refused as refused:
        session.out.line(str(refused))
    except asyncio.CancelledError:
        session.out.line("Stopped.")
    except Exception as error:  # the last line of defence: one line, never a traceback
        log.exception("plain mode: %r failed", line[:80])
        session.out.line(f"That did not work: {type(error).__name__}: {error}", kind="problem")
    finally:
        session.current = None


def find(word: str) -> Command:
    """The command `word` names (a unique beginning is enough: /reg, /temp)."""
    name = word.lower()
    if name in COMMANDS:
        return COMMANDS[name]
    matches = [command for command in COMMANDS.values() if command.name.startswith(name)] if name else []
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Refused(f"/{word} could be " + ", ".join(f"/{c.name}" for c in matches) + ".")
    raise Refused(f"There is no command /{word}: /help lists them (// at the start sends a line beginning with /).")


def completions(session: PlainSession, line: str) -> list[str]:
    """What tab offers for the line typed so far: command names, then template names or model ids.

    Called by readline on the main thread while the engine's loop waits for the next line."""
    if not line.startswith("/"):
        return []
    word, space, _rest = line[1:].partition(" ")
    if not space:
        return [f"/{name}" for name in COMMANDS if name.startswith(word.lower())]
    try:
        command = find(word)
    except Refused:
        return []
    if command.name == "template":
        return [entry.name for entry in session.template_library().entries(session.dialog, session.center)]
    if command.name in ("model", "compare"):
        models = [(provider.id, model.id) for provider in session.center.providers for model in provider.models]
        return [f"{provider}/{model}" for provider, model in models] + [model for _provider, model in models]
    return []
