"""`visindigo` with run options only is parsed without building the subcommands' parsers (issue 14: start-up),
and reads exactly as the full parser reads it; everything else goes to the full parser."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import pytest

from visindigo import cli, dialogs_cli

ARGVS = [
    [],
    ["--demo"],
    ["--fps", "2", "--model", "list"],  # a command's name as an option's value is still a run
    ["--provider=a", "--debug", "--debug"],
    ["--dem"],  # an abbreviation
    ["list"],
    ["--demo", "serve"],
    ["--", "list"],
    ["foo"],
    ["--fps", "x"],
    ["--model"],
    ["-V"],
    ["--help"],
    ["doctor", "--help"],
    ["--plain", "--color"],
    ["chat", "--plain", "--demo"],
    ["--demo", "chat"],
    ["chat", "--help"],
    ["ask", "why?", "--model", "m"],  # `ask` is read by a parser with that one subcommand
    ["--model", "m", "--data-dir", "d", "ask", "-c", "more"],
    ["ask", "-f", "a.log", "-f", "b.log", "--template", "T", "-v", "x=1", "--json"],
    ["ask", "--no-such-option"],
    ["ask", "-c", "--dialog", "x", "q"],
    ["ask", "--help"],
    ["ask"],
]


def _read(parse: Any, argv: list[str]) -> tuple[object, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            result: object = vars(parse(argv))
        except SystemExit as leaving:
            result = ("exit", leaving.code)
    return result, out.getvalue()


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_the_arguments_read_as_the_full_parser_reads_them(argv: list[str]) -> None:
    assert _read(cli.parse_arguments, argv) == _read(lambda a: cli.build_parser().parse_args(a), argv)


def test_a_plain_start_builds_no_subcommand_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bool] = []
    real = dialogs_cli.add_commands
    monkeypatch.setattr(dialogs_cli, "add_commands", lambda commands: (built.append(True), real(commands)))
    assert cli.parse_arguments(["--demo", "--fps", "2"]).command is None
    assert built == []
    assert cli.parse_arguments(["list"]).command == "list"
    assert built == [True]
    assert cli.parse_arguments(["ask", "why?"]).question == ["why?"]
    assert built == [True]  # `ask` builds its own parser alone


def test_a_plain_start_with_plain_options_builds_no_subcommand_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[bool] = []
    real = dialogs_cli.add_commands
    monkeypatch.setattr(dialogs_cli, "add_commands", lambda commands: (built.append(True), real(commands)))
    args = cli.parse_arguments(["--plain", "--demo"])
    assert (args.command, args.plain, args.demo) == (None, True, True)
    assert built == []
    chat = cli.parse_arguments(["chat", "--plain", "--color"])
    assert (chat.command, chat.plain, chat.color) == ("chat", True, True)


def test_the_usage_line_names_every_subcommand() -> None:
    """The names in the usage line are written out (see `cli.COMMAND_NAMES`); `usage` was once missing from it."""
    parser = cli.build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    assert list(cli.COMMAND_NAMES) == list(commands.choices or {})
    assert "{" + ",".join(cli.COMMAND_NAMES) + "}" in parser.format_usage()


def test_the_app_sets_up_its_log_with_the_garbage_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Setting up the log imports the engine; the app's start pauses the collector first (issue 23: start-up)."""
    import gc

    seen: list[bool] = []
    monkeypatch.setattr(cli, "start_log", lambda args: seen.append(gc.isenabled()))
    monkeypatch.setattr(cli, "plain_chosen", lambda args: False)
    monkeypatch.setattr(cli, "_run_app", lambda args: 0)
    assert gc.isenabled()
    assert cli.main([]) == 0
    assert seen == [False]
    assert gc.isenabled()  # and resumed when the app is over
