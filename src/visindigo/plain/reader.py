"""Reading the user's lines: GNU readline (or libedit) when there is one, with `/` commands completed on tab.

Readline would write escape sequences of its own: bracketed paste mode (`ESC [ ? 2004 h`, on by default since
readline 8.1) and the meta key (`ESC [ ? 1034 h` on xterms). Both are switched off before the first line is
read, so typing a line and sending it writes no escape sequence (the pty tests check it). Editing the line
(backspace in the middle, ctrl+u) is redrawn by readline with the terminal's own cursor sequences; where TERM
says the terminal has none (`dumb`, or unset) readline is not used, and the terminal's own line editing (the
kernel's, or Emacs') does the work. Without a terminal (input from a pipe) readline is not used either.

A message of several lines is typed between two lines of three double quotes (`\"\"\"`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType

from . import DUMB_TERMS

Completer = Callable[[str], list[str]]
"""The completions of the line typed so far (the whole line, so arguments can be completed too)."""

#: The line that opens and closes a message of several lines.
BLOCK = '"""'


class LineReader:
    """`read(prompt)` a line; None at the end of input (ctrl+d). ctrl+c raises KeyboardInterrupt as usual."""

    def __init__(self, completer: Completer | None = None, *, use_readline: bool | None = None) -> None:
        #: Input from a pipe is not echoed by a terminal: the line is written after its prompt, for the transcript.
        self.echo = not _isatty(sys.stdin)
        if use_readline is None:
            use_readline = not self.echo and os.environ.get("TERM", "") not in DUMB_TERMS
        self.readline = _set_up_readline(completer) if use_readline else None

    def read(self, prompt: str, *, prefill: str = "") -> str | None:
        """One line without its newline; `prefill` is put on the line to edit, where readline can do that."""
        hook = self.readline is not None and prefill and "\n" not in prefill
        if hook:
            assert self.readline is not None
            readline = self.readline
            readline.set_startup_hook(lambda: readline.insert_text(prefill))
        try:
            line = input(prompt)
            if self.echo:
                print(line, flush=True)
            return line
        except EOFError:
            return None
        finally:
            if hook:
                assert self.readline is not None
                self.readline.set_startup_hook(None)

    def read_message(self, prompt: str, *, prefill: str = "") -> str | None:
        """A message: one line, or the lines between two `\"\"\"` lines (joined with newlines)."""
        first = self.read(prompt, prefill=prefill)
        if first is None or first.strip() != BLOCK:
            return first
        lines: list[str] = []
        while (line := self.read("... ")) is not None:
            if line.strip() == BLOCK:
                break
            lines.append(line)
        return "\n".join(lines)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def _set_up_readline(completer: Completer | None) -> ModuleType | None:
    try:
        import readline
    except ImportError:  # no readline on this Python (some builds): plain input() still works
        return None
    libedit = "libedit" in (readline.__doc__ or "")
    if libedit:
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        for setting in ("enable-bracketed-paste off", "enable-meta-key off", "horizontal-scroll-mode off"):
            readline.parse_and_bind(f"set {setting}")
        readline.parse_and_bind("tab: complete")
    if completer is not None:
        readline.set_completer_delims(" \t\n")
        readline.set_completer(_readline_completer(readline, completer))
    return readline


def _readline_completer(readline: ModuleType, completer: Completer) -> Callable[[str, int], str | None]:
    """Readline's calling convention (the word, then the n-th match) over one that returns all matches."""
    matches: list[str] = []

    def complete(word: str, state: int) -> str | None:
        if state == 0:
            line = readline.get_line_buffer()[: readline.get_endidx()]
            matches[:] = [match for match in completer(line) if match.startswith(word)]
        return matches[state] if state < len(matches) else None

    return complete
