"""The command line's parsers (argparse), for `visindigo.cli`.

A plain `visindigo` (no arguments: the app, as most starts are) needs none of this: `cli` gives it the run
options' defaults (`cli.RUN_DEFAULTS`, which tests/tui/start/test_main_start.py checks against this parser), so
argparse and gettext are not loaded on the way to the app's first frame. Everything else — run options, a
subcommand, --help, a mistake — is read here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from visindigo import __version__


def _add_run_options(parser: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """The options of a run; on `serve` they default to "not given" so `visindigo --demo serve` keeps --demo."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if sub else value

    parser.add_argument(
        "--demo",
        action="store_true",
        default=default(False),
        help="try the app on the built-in demo model (no API key; nothing is saved)",
    )
    parser.add_argument("--provider", metavar="ID", default=default(""), help="provider for this run (a configured id)")
    parser.add_argument("--model", metavar="ID", default=default(""), help="model for this run")
    parser.add_argument(
        "--config", metavar="FILE", type=Path, default=default(None), help="config file instead of the default"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", type=Path, default=default(None), help="folder for dialogs instead of the default"
    )
    parser.add_argument(
        "--fps",
        metavar="N",
        type=float,
        default=default(None),
        help="frames per second while a reply streams (default 4; 1-2 for slow SSH links)",
    )
    # Set by `visindigo serve` on the command each browser tab runs (see open_center and _fail_served).
    parser.add_argument("--served", action="store_true", default=default(False), help=argparse.SUPPRESS)


def _add_plain_options(parser: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """The plain line mode's options, on the top level and on `chat`."""
    parser.add_argument(
        "--plain",
        action="store_true",
        default=argparse.SUPPRESS if sub else False,
        help="a line-by-line conversation instead of the full-screen app, for screen readers and dumb terminals "
        "(also chosen when TERM=dumb, or stdin or stdout is not a terminal)",
    )
    parser.add_argument(
        "--color",
        action="store_true",
        default=argparse.SUPPRESS if sub else False,
        help="colour the labels of --plain mode (never under NO_COLOR)",
    )


def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size()` finds it (COLUMNS, else stdout's terminal, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    try:
        lines = int(os.environ["LINES"])
    except (KeyError, ValueError):
        lines = 0
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        if columns <= 0:
            columns = size.columns or 80
    return columns


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, the width found as argparse finds it but without importing shutil: a parser makes one
    for every argument it is given, and shutil (with bz2, lzma and fnmatch) was 2 ms of `visindigo ask`'s start."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


class _Parser(argparse.ArgumentParser):
    """The top-level parser; its --help ends with the files in use, worked out only when help is printed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        return super().format_help() + "\n" + _paths_help()


def _paths_help() -> str:
    from visindigo.engine.applog import LOG_ENV
    from visindigo.engine.paths import HOME_ENV, resolve_paths

    paths = resolve_paths()
    chosen = f"${HOME_ENV}={os.environ[HOME_ENV]}" if os.environ.get(HOME_ENV) else "platform default"
    return (
        f"files ({chosen}; set {HOME_ENV}=DIR to keep everything in DIR/config and DIR/data):\n"
        f"  config       {paths.config_file}\n"
        f"  credentials  {paths.credentials_file}\n"
        f"  data         {paths.data_dir}\n"
        f"  logs         {paths.logs_dir}  (--debug or {LOG_ENV}=debug)\n"
        "`visindigo config path --all` lists every location; `visindigo doctor` checks them.\n"
    )


def build_parser(names: Sequence[str], *, commands: bool = True, only: str = "") -> argparse.ArgumentParser:
    """The command line's parser; without `commands`, the run options alone, raising `argparse.ArgumentError`
    instead of printing it (see `parse_arguments`); with `only`, the one subcommand of that name (`ask`). `names`:
    the subcommands as the usage line lists them (`cli.COMMAND_NAMES`)."""
    parser = _Parser(
        prog="visindigo",
        description="A full-screen terminal workstation for large language models.",
        epilog="Keys: f1 inside the app. Commands: ctrl+p. Quit: ctrl+q.",
        exit_on_error=commands,
    )
    parser.add_argument("-V", "--version", action="version", version=f"visindigo {__version__}")
    parser.add_argument(
        "--debug",
        action="count",
        default=0,
        help="write a debug log to the logs folder (twice: with message text); also VISINDIGO_LOG=debug|trace",
    )
    _add_run_options(parser)
    _add_plain_options(parser)
    if not commands:
        parser.set_defaults(command=None)
        return parser
    from visindigo import ask_cli

    subparsers = parser.add_subparsers(dest="command", metavar="{" + ",".join(names) + "}")
    ask_cli.add_commands(subparsers)
    if only == "ask":
        return parser  # without the other commands' modules: `ask` sends its question sooner (ask_early)
    from visindigo import completion, config_cli, dialogs_cli, doctor, scores_cli, tools_cli, usage_cli

    chat = subparsers.add_parser(
        "chat",
        help="talk to a model: the app, or with --plain a line-by-line conversation",
        description="Talk to a model in the full-screen app, or with --plain as a line-by-line conversation (no "
        "cursor addressing, no colour unless asked): the same dialogs, providers, tools and templates.",
    )
    _add_run_options(chat, sub=True)
    _add_plain_options(chat, sub=True)
    serve = subparsers.add_parser(
        "serve",
        help="serve the app to a web browser (textual-serve)",
        description="Serve the same app to a web browser. Each browser tab runs its own app process.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--public-url", default=None, help="URL the browser reaches the server at, behind a proxy")
    _add_run_options(serve, sub=True)
    dialogs_cli.add_commands(subparsers)
    scores_cli.add_commands(subparsers)
    usage_cli.add_commands(subparsers)
    config_cli.add_commands(subparsers)
    doctor.add_commands(subparsers)
    tools_cli.add_commands(subparsers)
    completion.add_commands(subparsers)
    return parser
