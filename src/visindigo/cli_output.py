"""What the command line prints: every line passes the terminal sanitiser first.

Config values, provider names, model ids, server output and error texts come from outside; printed raw, an
escape sequence in any of them would act on the user's terminal. The new commands (config, doctor,
completion, tools) print through `say` and `fail` so that the sanitiser is applied in one place.
"""

from __future__ import annotations

import sys
from typing import TextIO


def _clean(text: str) -> str:
    from visindigo.engine.sanitize import clean  # imported when something is printed, not at every start

    return clean(text)


def say(text: str = "", *, file: TextIO | None = None) -> None:
    print(_clean(text), file=file or sys.stdout)


def fail(message: str) -> int:
    """One line on stderr, exit status 1: what went wrong and where, never a traceback."""
    print(f"visindigo: {_clean(message)}", file=sys.stderr)
    return 1
