"""The `visindigo` command line.

Parsing lives here and nothing heavy is imported at module level: `--version` and `--help` must answer
without loading Textual, and the app is imported only when it is about to run. Every problem found before
the app starts (a locked or unreadable store, a missing optional dependency) is one clear sentence on stderr
and exit status 1, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visindigo import __version__
from visindigo.cli_output import say

if TYPE_CHECKING:
    from visindigo.engine import Center

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}


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


#: The subcommands in the order `--help` lists them. Written out because the parser made for `ask` alone has
#: only that one, and its usage line must read as the full parser's (tests/test_cli_start.py checks the two agree).
COMMAND_NAMES = (
    "ask", "chat", "serve", "list", "export", "import", "scores", "usage", "config", "doctor", "tools", "completion"
)


def build_parser(*, commands: bool = True, only: str = "") -> argparse.ArgumentParser:
    """The command line's parser; without `commands`, the run options alone, raising `argparse.ArgumentError`
    instead of printing it (see `parse_arguments`); with `only`, the one subcommand of that name (`ask`)."""
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

    subparsers = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMAND_NAMES) + "}")
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


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The arguments, as the full parser reads them.

    A plain `visindigo [run options]` is read by the run options' parser alone: the thirteen subcommands'
    parsers took ~10 ms of every start to build (argparse looks up its translations for each one). `visindigo
    ask`, which scripts start again and again, is read by a parser with that one subcommand. Anything else — a
    command, --help, a mistake, the shell asking for completions — goes to the full parser, which says what it
    says for it.
    """
    only = ""
    if "_ARGCOMPLETE" not in os.environ and not {"-h", "--help"} & set(argv):
        try:
            args, rest = build_parser(commands=False).parse_known_args(argv)
        except argparse.ArgumentError:
            rest = argv
        if not rest:
            return args
        from visindigo import ask_cli

        if rest[0] in ask_cli.COMMANDS:
            only = rest[0]
    from visindigo import completion

    parser = build_parser(only=only)
    completion.complete_if_asked(parser)
    return parser.parse_args(argv)


def _fail(message: str) -> int:
    from visindigo.engine.sanitize import clean

    print(f"visindigo: {clean(message)}", file=sys.stderr)
    return 1


def describe_failure(error: BaseException, command: str) -> str:
    """One line for an error nothing else caught: what happened and where, never a traceback."""
    where = f"visindigo {command}" if command else "visindigo"
    if isinstance(error, OSError):
        target = f" ({error.filename})" if error.filename else ""
        return f"{where}: {error.strerror or error}{target}"
    if isinstance(error, RecursionError):
        return f"{where}: the data is nested too deeply to read"
    if isinstance(error, MemoryError):
        return f"{where}: out of memory (is the file far larger than a dialog export?)"
    text = str(error).strip()
    kind = type(error).__name__
    if type(error).__module__ == "sqlite3":
        return f"{where}: the dialog store failed: {text or kind}"
    return f"{where}: unexpected {kind}: {text}" if text else f"{where}: unexpected {kind}"


@contextlib.contextmanager
def cleaned_output() -> Iterator[None]:
    """Everything the command writes to stdout and stderr goes through the one sanitising function."""
    from visindigo.engine.sanitize import TerminalWriter

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalWriter(sys.stdout), TerminalWriter(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def open_center(args: argparse.Namespace) -> Center:
    """The Center for this run: in memory for --demo, otherwise the configured store.

    A browser tab of `visindigo serve` whose store another tab already holds reads it beside that one
    (`Center.read_only`): every tab gets a working app, one of them saves, and the others say so.
    """
    from visindigo.engine import Center
    from visindigo.engine.storage import StoreLocked

    if args.demo:
        return Center()
    from visindigo.cli_progress import SalvageProgressLine

    progress = SalvageProgressLine()  # before the app takes the screen, a damaged store's repair is shown here
    try:
        return Center.open(config_path=args.config, data_dir=args.data_dir, on_salvage=progress)
    except StoreLocked as locked:
        if not getattr(args, "served", False):
            raise
        center = Center.open(config_path=args.config, data_dir=args.data_dir, read_only=True)
        holder = f" (process {locked.holder})" if locked.holder else ""
        center.notices.insert(
            0,
            f"Read-only: another browser tab{holder} is saving to these dialogs. What you do in this tab is "
            "not saved; close the other tab and reload this one to save here.",
        )
        return center
    finally:
        progress.finish()


def run_app(args: argparse.Namespace) -> int:
    # Start-up makes objects that live as long as the app; scanning them for garbage was a tenth of the time
    # to the first frame. The app collects once and resumes the collector after that frame (VisindigoApp). The
    # pause starts before the log is set up, which imports the engine.
    gc.disable()
    try:
        start_log(args)
        return _run_app(args)
    finally:
        gc.enable()


def _opened_center(args: argparse.Namespace) -> Center | int:
    """The run's Center, or the exit status after saying in one line why it cannot be opened."""
    from visindigo.engine.storage.errors import StoreError

    try:
        return open_center(args)
    except StoreError as error:
        return _fail_served(args, str(error))
    except OSError as error:
        return _fail_served(args, f"cannot open Visindigo's files: {error}")


def plain_chosen(args: argparse.Namespace) -> bool:
    """--plain, or a terminal that cannot show the app (never for a browser tab of `visindigo serve`)."""
    if getattr(args, "plain", False):
        return True
    if getattr(args, "served", False):
        return False
    from visindigo.plain import wanted

    return wanted(os.environ, sys.stdout, sys.stdin)


def run_plain(args: argparse.Namespace) -> int:
    """The plain line mode over the same Center the app would open (see `visindigo.plain`)."""
    center = _opened_center(args)
    if isinstance(center, int):
        return center
    from visindigo.plain.session import PlainOptions
    from visindigo.plain.start import run

    options = PlainOptions(demo=args.demo, provider=args.provider, model=args.model, colour=args.color)
    try:
        return run(center, options)
    finally:
        center.close()


def _run_app(args: argparse.Namespace) -> int:
    center = _opened_center(args)
    if isinstance(center, int):
        return center
    from visindigo.tui.app import AppOptions, VisindigoApp

    options = AppOptions(demo=args.demo, provider=args.provider, model=args.model, stream_fps=args.fps)
    app = VisindigoApp(center, options)
    try:
        app.run()
    finally:
        app.remove_temporary_files()  # also after a crash or a signal (the app's own quit removes them too)
        center.close()
    return app.return_code or 0


def _fail_served(args: argparse.Namespace, message: str) -> int:
    """One line on stderr; in a browser tab also on the page, which would otherwise wait on its splash."""
    code = _fail(message)
    if getattr(args, "served", False):
        from visindigo.tui.start.problem_app import ProblemApp

        ProblemApp(message).run()
    return code


def serve_command(args: argparse.Namespace) -> list[str]:
    """The command each browser session runs: this Python, this package, the same run options."""
    command = [sys.executable, "-m", "visindigo", "--served"]
    if args.demo:
        command.append("--demo")
    for flag, value in (
        ("--provider", args.provider),
        ("--model", args.model),
        ("--config", args.config),
        ("--data-dir", args.data_dir),
        ("--fps", args.fps),
    ):
        if value:
            command += [flag, str(value)]
    return command


def run_serve(args: argparse.Namespace) -> int:
    try:
        import textual_serve.server  # noqa: F401
    except ImportError:
        from visindigo.install_advice import extra_command

        return _fail(f"serving needs textual-serve: {extra_command('serve', ['textual-serve'])}")
    if args.host not in LOOPBACK_HOSTS:
        print(
            f"visindigo: serving on {args.host}: anyone who can reach this port can use the app, "
            "your dialogs and your API keys. Put it behind authentication.",
            file=sys.stderr,
        )
    problem = port_problem(args.host, args.port)
    if problem:
        return _fail(problem)
    import shlex

    from visindigo.tui.platform.serve_files import make_server

    command = " ".join(shlex.quote(part) for part in serve_command(args))
    server = make_server(command, host=args.host, port=args.port, title="Visindigo", public_url=args.public_url)
    try:
        server.serve()
    except OSError as error:  # the port was taken between the check and the start
        return _fail(port_problem(args.host, args.port) or f"cannot serve on {args.host}:{args.port}: {error}")
    return 0


def port_problem(host: str, port: int) -> str:
    """Why `host:port` cannot be listened on, as the line the user reads; "" when it can."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        return f"cannot serve on {host}: {error.strerror or error}"
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use; choose another with --port (e.g. --port {port + 1})"
            return f"cannot serve on {host}:{port}: {error.strerror or error}"
    return ""


def start_log(args: argparse.Namespace) -> Path | None:
    """The debug log when --debug or VISINDIGO_LOG asks for it; a folder that cannot be written is one line."""
    from visindigo.engine import applog
    from visindigo.engine.paths import resolve_paths

    level = applog.level_from(args.debug)
    if level <= 0:
        return None
    logs_dir = resolve_paths(config_path=args.config, data_dir=args.data_dir).logs_dir
    try:
        return applog.configure(level, logs_dir)
    except OSError as error:
        say(f"visindigo: no debug log: cannot write {logs_dir} ({error.strerror or error})", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_arguments(list(sys.argv[1:] if argv is None else argv))
    if args.fps is not None and not 0.5 <= args.fps <= 60:
        return _fail("--fps must be between 0.5 and 60")
    if args.command not in (None, "chat", "serve"):
        return run_command(args)
    if args.command == "serve":
        start_log(args)
        return run_serve(args)
    try:
        if plain_chosen(args):
            start_log(args)
            return run_plain(args)
        return run_app(args)
    except Exception as error:
        return _fail(describe_failure(error, "").removeprefix("visindigo: "))


def run_command(args: argparse.Namespace) -> int:
    """A subcommand other than chat and serve; their modules are imported only here (not on the app's start)."""
    from visindigo import ask_cli

    if args.command in ask_cli.COMMANDS:  # first, without the other commands' modules (see ask_early)
        import logging

        logging.getLogger("visindigo").addHandler(logging.NullHandler())  # ask prints config problems itself
        # As for the app (run_app): the collector would scan the start-up's long-lived objects again and again.
        # `ask` resumes it once its question has left (ask_cli.run).
        gc.disable()
        try:
            start_log(args)
            return run_ask(args)
        finally:
            gc.enable()
    from visindigo import completion, config_cli, dialogs_cli, doctor, scores_cli, tools_cli, usage_cli

    if args.command == "completion":
        return completion.run(args)
    if args.command in (
        *config_cli.COMMANDS,
        *doctor.COMMANDS,
        *tools_cli.COMMANDS,
        *dialogs_cli.COMMANDS,
    ):
        # these print config problems themselves; without this, logging's last resort repeats them on stderr
        import logging

        logging.getLogger("visindigo").addHandler(logging.NullHandler())
    if args.command in config_cli.COMMANDS:
        return config_cli.run(args)
    start_log(args)
    if args.command in dialogs_cli.COMMANDS:
        return run_guarded(dialogs_cli.run, args)
    if args.command in scores_cli.COMMANDS:
        return run_guarded(scores_cli.run, args)
    if args.command in usage_cli.COMMANDS:
        return run_guarded(usage_cli.run, args)
    if args.command in doctor.COMMANDS:
        return run_guarded(doctor.run, args)
    if args.command in tools_cli.COMMANDS:
        return run_guarded(tools_cli.run, args)
    return _fail(f"no such command: {args.command}")


def run_ask(args: argparse.Namespace) -> int:
    """`visindigo ask`, which writes its own output (cleaned, and on a terminal rendered: not through
    `cleaned_output`, which would strip the rendering); what escapes it is one line, never a traceback."""
    from visindigo import ask_cli

    try:
        return ask_cli.run(args)
    except KeyboardInterrupt:  # before the run started, or a second ctrl+c while it was being stopped
        return ask_cli.INTERRUPTED
    except Exception as error:
        say(describe_failure(error, "ask"), file=sys.stderr)
        return 1


def run_guarded(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a command with its stdout and stderr sanitised and one line, never a traceback, for what escapes it."""
    with cleaned_output():
        try:
            return command(args)
        except KeyboardInterrupt:
            return 130
        except Exception as error:  # the last line of defence
            print(describe_failure(error, args.command), file=sys.stderr)
            return 1
