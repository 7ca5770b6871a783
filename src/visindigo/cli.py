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
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from visindigo import __version__, dialogs_cli

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visindigo",
        description="A full-screen terminal workstation for large language models.",
        epilog="Keys: f1 inside the app. Commands: ctrl+p. Quit: ctrl+q.",
    )
    parser.add_argument("--version", action="version", version=f"visindigo {__version__}")
    _add_run_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="{serve,list,export,import}")
    serve = commands.add_parser(
        "serve",
        help="serve the app to a web browser (textual-serve)",
        description="Serve the same app to a web browser. Each browser tab runs its own app process.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--public-url", default=None, help="URL the browser reaches the server at, behind a proxy")
    _add_run_options(serve, sub=True)
    dialogs_cli.add_commands(commands)
    return parser


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
    """The Center for this run: in memory for --demo, otherwise the configured store."""
    from visindigo.engine import Center

    if args.demo:
        return Center()
    return Center.open(config_path=args.config, data_dir=args.data_dir)


def run_app(args: argparse.Namespace) -> int:
    # Start-up makes objects that live as long as the app; scanning them for garbage was a tenth of the time
    # to the first frame. The app collects once and resumes the collector after that frame (VisindigoApp).
    gc.disable()
    try:
        return _run_app(args)
    finally:
        gc.enable()


def _run_app(args: argparse.Namespace) -> int:
    from visindigo.engine.storage.errors import StoreError

    try:
        center = open_center(args)
    except StoreError as error:
        return _fail(str(error))
    except OSError as error:
        return _fail(f"cannot open Visindigo's files: {error}")
    from visindigo.tui.app import AppOptions, VisindigoApp

    options = AppOptions(demo=args.demo, provider=args.provider, model=args.model, stream_fps=args.fps)
    app = VisindigoApp(center, options)
    try:
        app.run()
    finally:
        center.close()
    return app.return_code or 0


def serve_command(args: argparse.Namespace) -> list[str]:
    """The command each browser session runs: this Python, this package, the same run options."""
    command = [sys.executable, "-m", "visindigo"]
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
        from textual_serve.server import Server
    except ImportError:
        return _fail("serving needs textual-serve: pip install 'visindigo[serve]'")
    if args.host not in LOOPBACK_HOSTS:
        print(
            f"visindigo: serving on {args.host}: anyone who can reach this port can use the app, "
            "your dialogs and your API keys. Put it behind authentication.",
            file=sys.stderr,
        )
    command = " ".join(shlex.quote(part) for part in serve_command(args))
    server = Server(command, host=args.host, port=args.port, title="Visindigo", public_url=args.public_url)
    server.serve()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.fps is not None and not 0.5 <= args.fps <= 60:
        return _fail("--fps must be between 0.5 and 60")
    if args.command == "serve":
        return run_serve(args)
    if args.command in dialogs_cli.COMMANDS:
        with cleaned_output():
            try:
                return dialogs_cli.run(args)
            except KeyboardInterrupt:
                return 130
            except Exception as error:  # the last line of defence: one sentence, never a traceback
                print(describe_failure(error, args.command), file=sys.stderr)
                return 1
    try:
        return run_app(args)
    except Exception as error:
        return _fail(describe_failure(error, "").removeprefix("visindigo: "))
