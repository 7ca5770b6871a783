"""The plain line mode: `visindigo chat --plain`, a line-by-line conversation over the engine.

For a screen reader, a braille display, a dumb terminal or a pipe: the same dialogs, store, providers, tools
and templates as the app, but nothing that addresses the cursor, draws boxes or redraws a line. Every state
change is one line, written once; the answer streams as plain text. Nothing here imports Textual or Rich.

This module stays tiny because the command line asks `wanted()` on every start: the rest loads only when the
plain mode runs (`start.run`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

#: Terminals that cannot show a full-screen app (Emacs' shell, some braille and serial consoles).
DUMB_TERMS = frozenset({"dumb", ""})


def wanted(environ: Mapping[str, str], stdout: TextIO, stdin: TextIO | None = None) -> bool:
    """Whether a start without `--plain` should still be plain: TERM says the terminal cannot address the
    cursor, or stdout (or stdin, when given) is not a terminal at all — lines piped in (`echo hi | visindigo`)
    are read as lines, where the app could read no key. A Textual driver chosen in the environment
    (`visindigo serve` runs the app with one, on a pipe) means the full app is wanted."""
    if environ.get("TEXTUAL_DRIVER"):
        return False
    if environ.get("TERM", "") in DUMB_TERMS:
        return True
    return not all(_is_terminal(stream) for stream in (stdout, stdin) if stream is not None)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
