"""Running the plain mode: the engine's loop started, the conversation read line by line, everything closed.

The command line opens the Center (with the app's messages for a locked or damaged store) and hands it here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping

from visindigo.engine import Center
from visindigo.plain import commands
from visindigo.plain.console import EngineLoop, wait_for
from visindigo.plain.output import Output
from visindigo.plain.reader import LineReader
from visindigo.plain.session import PlainOptions, PlainSession
from visindigo.plain.signals import leaving_on_signals

PROMPT = "> "


def colour_wanted(asked: bool, environ: Mapping[str, str] | None = None) -> bool:
    """Colour only when asked for (`--color`), and never under NO_COLOR (https://no-color.org)."""
    environ = os.environ if environ is None else environ
    return asked and not environ.get("NO_COLOR")


def run(center: Center, options: PlainOptions) -> int:
    """The conversation until ctrl+d or /quit; returns the exit status."""
    out = Output(sys.stdout, colour=colour_wanted(options.colour))
    engine = EngineLoop()
    session = PlainSession(center, out, engine.ask, options)
    reader = LineReader(lambda line: commands.completions(session, line))
    session.tab_completes = reader.readline is not None

    def carry_out(work: object) -> None:
        wait_for(engine, engine.submit(work), reader, session.interrupt, out.end)  # type: ignore[arg-type]

    status = 0
    with leaving_on_signals():
        try:
            carry_out(session.begin())
            while not session.quitting:
                out.end()
                try:
                    line = reader.read_message(PROMPT)
                except KeyboardInterrupt:
                    out.line("")
                    out.line("ctrl+d or /quit leaves.")
                    continue
                if line is None:
                    out.line("")
                    break
                carry_out(commands.handle(session, line))
        except SystemExit as leaving:  # SIGTERM or SIGHUP
            status = leaving.code if isinstance(leaving.code, int) else 1
        except KeyboardInterrupt:  # ctrl+c between two lines: leaving, without a traceback
            status = 130
        finally:
            with contextlib.suppress(BaseException):
                engine.submit(session.close()).result(timeout=15)
            engine.stop()
    return status
