"""The `visindigo` command line.

Parsing lives here and nothing heavy is imported at module level: `--version` and `--help` must answer
without loading Textual, and the app is imported only when it is about to run. Every problem found before
the app starts (a locked or unreadable store, a missing optional dependency) is one clear sentence on stderr
and exit status 1, never a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from visindigo.cli_output import say

if TYPE_CHECKING:
    import argparse

    from visindigo.engine import Center

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

#: The subcommands in the order `--help` lists them. Written out because the parser made for `ask` alone has
#: only that one, and its usage line must read as the full parser's (tests/test_cli_start.py checks the two agree).
COMMAND_NAMES = (
    "ask", "chat", "serve", "list", "export", "import", "scores", "usage", "config", "doctor", "tools", "completion"
)  # fmt: skip


#: What the run options' parser reads from no arguments at all (a plain `visindigo`, most starts): given without
#: loading argparse (tests/tui/start/test_main_start.py checks it against the parser).
RUN_DEFAULTS: dict[str, object] = {
    "debug": 0, "demo": False, "provider": "", "model": "", "config": None, "data_dir": None, "fps": None,
    "served": False, "plain": False, "color": False, "command": None,
}  # fmt: skip


def build_parser(*, commands: bool = True, only: str = "") -> argparse.ArgumentParser:
    """The command line's parser (`cli_parser.build_parser`)."""
    from visindigo.cli_parser import build_parser as build

    return build(COMMAND_NAMES, commands=commands, only=only)


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The arguments, as the full parser reads them.

    A plain `visindigo [run options]` is read by the run options' parser alone: the thirteen subcommands'
    parsers took ~10 ms of every start to build (argparse looks up its translations for each one). `visindigo
    ask`, which scripts start again and again, is read by a parser with that one subcommand. Anything else — a
    command, --help, a mistake, the shell asking for completions — goes to the full parser, which says what it
    says for it.
    """
    only = ""
    if not argv and "_ARGCOMPLETE" not in os.environ:
        from types import SimpleNamespace

        return cast("argparse.Namespace", SimpleNamespace(**RUN_DEFAULTS))
    import argparse

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
