"""`visindigo ask`: one question from the shell, the answer on stdout, the dialog in the app's store.

The question comes from the arguments, stdin (attached as a file named "stdin"), `-f` files and `--template`;
the answer streams to stdout as it arrives (`ask_output`). The dialog is an ordinary one of the store
(`ask_store`): the app lists it and continues it, and `--continue` / `--dialog` continue the app's.
Exit status: 0 answered, 1 failed (one line on stderr), 2 wrong usage, 130 interrupted (ctrl+c; the partial
answer is saved, marked interrupted, as the app marks one).

Starting fast matters here more than anywhere: scripts run `ask` in loops. This module is imported by every
`visindigo` start, so it imports nothing beyond argparse; the engine, asyncio and the HTTP client are loaded
by `run` (bench/ask_start.py measures the time to the first request).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .ask_errors import AskError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from visindigo.engine import Center, Dialog, Message
    from visindigo.engine.approval import Approval, ToolCallRequest

    from .ask_input import Question
    from .ask_output import Output

COMMANDS = ("ask",)

ANSWERED = 0
FAILED = 1
USAGE = 2
INTERRUPTED = 130
#: What a shell reports for a program ended by SIGPIPE: the reader of stdout went away (`ask … | head -1`).
READER_GONE = 141


def add_commands(commands: Any) -> None:
    ask = commands.add_parser(
        "ask",
        help="ask one question from the shell; the answer streams to stdout",
        description="Ask a question without the full screen. The question is the arguments, stdin (attached as "
        'a file named stdin: `cat build.log | visindigo ask "why does this fail?"`), or both. The dialog is '
        "saved like any other: the app lists it and continues it.",
        epilog="Exit status: 0 answered, 1 failed, 2 wrong usage, 130 interrupted (the partial answer is saved).",
    )
    ask.add_argument("question", metavar="QUESTION", nargs="*", help="the question (several words are joined)")
    ask.add_argument(
        "-f", "--file", metavar="PATH", type=Path, action="append", default=[], help="attach a file (repeatable)"
    )
    # SUPPRESS: `visindigo --model M ask` and `visindigo ask --model M` both work (see _add_run_options in cli).
    ask.add_argument("--model", metavar="ID", default=argparse.SUPPRESS, help="model to answer")
    ask.add_argument("--provider", metavar="ID", default=argparse.SUPPRESS, help="provider to use (a configured id)")
    ask.add_argument("--system", metavar="TEXT", default=None, help="a system prompt for the dialog")
    ask.add_argument("--template", metavar="NAME", default=None, help="fill this template and send it")
    ask.add_argument(
        "-v",
        "--var",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="a value for the template's field NAME (repeatable)",
    )
    which = ask.add_mutually_exclusive_group()
    which.add_argument(
        "-c", "--continue", dest="continue_last", action="store_true", help="continue the dialog changed last"
    )
    which.add_argument("--dialog", metavar="ID", default=None, help="continue this dialog (id or its beginning)")
    ask.add_argument(
        "--first-part",
        action="store_true",
        help="attach only the first part of a text over the size limit (the model is told) instead of refusing it",
    )
    ask.add_argument("--no-save", action="store_true", help="keep this question and answer out of the store")
    ask.add_argument("--json", action="store_true", help="write the run's events as JSON, one object per line")
    ask.add_argument("--reasoning", action="store_true", help="show the model's reasoning on stderr")
    ask.add_argument("--allow-tools", action="store_true", help="run every tool the model asks for without asking")
    ask.add_argument(
        "--allow-tool",
        metavar="NAME",
        action="append",
        default=[],
        help="run this tool without asking (a tool's name, a package tool or an MCP server; repeatable)",
    )
    ask.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    ask.add_argument(
        "--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help="folder of the dialog store"
    )


def run(args: argparse.Namespace) -> int:
    """Ask and answer; returns the exit status. Errors this function expects are one line; `cli` catches the rest."""
    from .ask_input import read_question

    try:
        question = read_question(args, sys.stdin)
    except UsageError as error:
        return _fail(str(error), USAGE)
    from visindigo.engine.storage.errors import StoreError

    from .ask_store import attach_store, config_center, open_center

    # A new question needs the config alone: the store is opened once it has left (`ask_early`), and a store
    # that cannot be opened then closes that request and fails in one line. A continued dialog is read from it.
    later = not args.demo and args.dialog is None and not args.continue_last
    try:
        center, unsaved = (config_center(args), "") if later else open_center(args)
    except StoreError as error:
        return _fail(str(error), FAILED)
    try:
        said = len(center.notices)
        for notice in center.notices:
            _say(notice)
        if unsaved:
            _say(unsaved)
        try:
            dialog, messages, continued = _prepare(center, args, question)
        except UsageError as error:
            return _fail(str(error), USAGE)
        except AskError as error:
            return _fail(str(error), FAILED)
        from .ask_early import send_first

        not_early = send_first(center, args, dialog, messages, continued)  # the question leaves before asyncio
        if not_early:
            import logging

            logging.getLogger("visindigo.ask").debug("the question was not sent early: %s", not_early)
        if later:
            try:
                unsaved = attach_store(center, args)  # the dialog is written into it now
            except StoreError as error:
                _discard_early()
                return _fail(str(error), FAILED)
            for notice in center.notices[said:]:
                _say(notice)
            if unsaved:
                _say(unsaved)
        import gc

        gc.enable()  # paused for the start-up by cli.run_command
        import asyncio

        return asyncio.run(_ask_in(center, args, dialog, messages, continued))
    finally:
        _discard_early()
        center.close()


async def _ask_in(
    center: Center, args: argparse.Namespace, dialog: Dialog, messages: list[Message], continued: bool
) -> int:
    """Ask in `dialog` — in its compacted branch when a continued dialog is due for automatic compaction."""
    from .ask_output import make_output
    from .ask_store import inbox_keeper

    keep = inbox_keeper(center, args, dialog)  # before the question: what a continued dialog started from
    if continued:
        dialog = await _compact_if_due(center, dialog, messages)
    for message in messages:
        dialog.append_message(message)
    output = make_output(args, sys.stdout, sys.stderr)
    approver = Approver(dialog, allow_all=args.allow_tools, names=args.allow_tool)
    saved = center.store is not None and not center.read_only
    return await answer(center, dialog, output, approver, saved=saved, keep=keep)


async def _compact_if_due(center: Center, dialog: Dialog, messages: list[Message]) -> Dialog:
    """The branch to ask in when `[context] auto_compact` is on and the dialog is at its threshold (as the app's
    main pane does), else `dialog`; a compaction that cannot be made is one line, and the question goes as it is."""
    from visindigo.engine.context.compaction import CompactionError, compact_if_due
    from visindigo.engine.sanitize import clean_line

    draft = "\n\n".join(message.content for message in messages)
    try:
        branch = await compact_if_due(center, dialog, draft)
    except CompactionError as error:
        _say(f"automatic compaction: {clean_line(str(error), 200)}")
        return dialog
    except Exception as error:  # a summary that could not be written: ask as it is, and say why
        _say(f"automatic compaction failed: {clean_line(str(error), 200)}")
        return dialog
    if branch is None:
        return dialog
    _say(f"the dialog was compacted automatically into the branch {branch.id[:8]}; the question goes there")
    return branch


def _prepare(center: Center, args: argparse.Namespace, question: Question) -> tuple[Dialog, list[Message], bool]:
    """The dialog to ask in with this run's choices applied, the question's messages (appended by `_ask_in`,
    after an automatic compaction), and whether the dialog is a continued one."""
    from visindigo.engine import Dialog, Skill

    from .ask_input import build_messages
    from .ask_store import choose_dialog

    provider_id = getattr(args, "provider", "")
    if provider_id and center.get_provider(provider_id) is None:
        from visindigo.engine.sanitize import clean_line

        known = ", ".join(clean_line(p.id, 40) for p in center.providers) or "none is configured"
        raise UsageError(f"--provider {clean_line(provider_id, 40)!r} is not configured (known: {known})")
    chosen = choose_dialog(center, args)
    dialog = chosen if chosen is not None else Dialog(center)  # registered once its question is ready
    before = dialog.provider_id, dialog.model_id
    if provider_id:
        dialog.provider_id = provider_id
    if getattr(args, "model", ""):
        dialog.model_id = args.model
    try:
        messages = build_messages(center, dialog, question)
    except BaseException:  # a refused question changes nothing of the dialog it was to continue
        dialog.provider_id, dialog.model_id = before
        raise
    if args.system is not None:
        dialog.add_skill(Skill(SYSTEM_SKILL, args.system, "the system prompt given to visindigo ask --system"))
    if not dialog.title:
        dialog.title = question.title(messages)
    if chosen is None:
        center.add_dialog(dialog)
    return dialog, messages, chosen is not None


#: The name of the skill `--system` gives a dialog (a second `--system` in the same dialog replaces it).
SYSTEM_SKILL = "system prompt (ask)"


async def answer(
    center: Center,
    dialog: Dialog,
    output: Output,
    approver: Approver,
    *,
    saved: bool,
    keep: Callable[[Dialog], str] | None = None,
) -> int:
    """Run the dialog, showing its events; the exit status. ctrl+c cancels the run, which keeps the partial
    answer marked interrupted; the store and the providers are closed before this returns. `keep` writes the
    dialog to the inbox of a store a running app holds once the run is over (`ask_store.inbox_keeper`)."""
    import asyncio
    import contextlib

    from visindigo.engine.events import EmptyAnswer, RunFailed, RunFinished, ToolCallFinished

    status, problem = FAILED, "the run ended without an answer"
    empty = False
    try:
        async with contextlib.aclosing(dialog.run(approve=approver)) as events:
            async for event in events:
                output.event(event)
                if isinstance(event, RunFinished) and not empty:
                    status, problem = ANSWERED, ""
                elif isinstance(event, RunFailed):
                    status, problem = FAILED, event.message
                elif isinstance(event, EmptyAnswer):  # a RunFinished follows; it is no answer all the same
                    reason = f" (finish reason: {event.finish_reason})" if event.finish_reason else ""
                    empty, problem = True, f"the model sent an empty answer{reason}"
                elif isinstance(event, ToolCallFinished) and approver.refused_call == event.call_id:
                    status, problem = FAILED, approver.refusal()
                    break
    except asyncio.CancelledError:  # ctrl+c (asyncio.run turns the first one into a cancel)
        status, problem = INTERRUPTED, ""
    except BrokenPipeError:
        status, problem = READER_GONE, ""
    finally:
        try:
            output.finish()
        except BrokenPipeError:
            status, problem = READER_GONE, ""
        await center.aclose()
    if keep is not None:
        trouble = keep(dialog)
        saved = not trouble
        if trouble:
            _say(trouble)
    if status == READER_GONE:
        _quiet_stdout()
    else:
        output.end(status=status, problem=problem, dialog_id=dialog.id, saved=saved)
    if problem:
        _fail(problem, status)
    return status


class Approver:
    """Decides on tools that need approval, with no screen to ask on: the flags allow, anything else is refused.

    A refused call fails the run (`answer` stops it once the refusal is recorded) and the error names the flag
    that would have allowed it. What the config allows (an MCP server's `approval`, `[tools] allow`) never asks.
    """

    def __init__(self, dialog: Dialog, *, allow_all: bool, names: list[str]) -> None:
        self.dialog = dialog
        self.allow_all = allow_all
        self.names = set(names)
        self.refused: ToolCallRequest | None = None

    async def __call__(self, request: ToolCallRequest) -> Approval:
        from visindigo.engine.approval import Approval

        if self.allow_all or self.names & self._names_of(request):
            return Approval.ALLOW_ONCE
        if self.refused is None:
            self.refused = request
        return Approval.DENY

    @property
    def refused_call(self) -> str:
        return self.refused.call_id if self.refused is not None else ""

    def _names_of(self, request: ToolCallRequest) -> set[str]:
        """Every name that allows this call: its id, its display name, its package tool, its MCP server."""
        names = {request.function_id, request.function_name}
        server, slash, _tool = request.function_name.partition("/")
        if slash:
            names.add(server)
        function = self.dialog.get_function(request.function_id)
        entry = getattr(function, "entry", None)
        if entry is not None:
            names.add(str(getattr(entry, "key", "")))
        return names

    def refusal(self) -> str:
        from visindigo.engine.sanitize import clean_line

        refused = self.refused
        assert refused is not None
        name = clean_line(refused.function_id, 64)
        return (
            f"the model asked to run the tool {name!r}, which needs approval, and `visindigo ask` has no screen to "
            f"ask on; allow it with --allow-tool {name} (or every tool with --allow-tools), or with approval in the "
            "config"
        )


def _discard_early() -> None:
    """Close a request sent early that no run took (the run failed before its request, ctrl+c)."""
    early = sys.modules.get("visindigo.engine.providers.early")
    if early is not None:
        early.discard()


def _say(text: str) -> None:
    from .cli_output import say

    say(f"visindigo: {text}", file=sys.stderr)


def _fail(message: str, status: int) -> int:
    from .cli_output import fail

    fail(message)
    return status


def _quiet_stdout() -> None:
    """Nothing more to the pipe whose reader left, not even the flush at exit (which would raise again)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)
