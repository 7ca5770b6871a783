"""Reading the user's lines: GNU readline when there is one, with `/` commands completed on tab.

Readline draws the line being typed with the terminal's cursor sequences: bracketed paste mode (`ESC [ ? 2004 h`),
the meta key (`ESC [ ? 1034 h`), clearing to the end of the line after a backspace (`ESC [ K`), and moving up and
right when a line longer than the terminal is wrapped. None of that may reach a screen reader's byte stream, so
readline is set up as for a dumb terminal (it then knows no cursor sequence and redraws with backspaces, spaces
and carriage returns) on a screen as wide as any line, so it never scrolls a long line sideways: the terminal
wraps it as it wraps any text. Where that cannot be arranged (no GNU readline, libedit) the terminal's own line
editing is used, and without a terminal (input from a pipe), the line is read as it comes.

A message of several lines is typed between two lines of three double quotes (`\"\"\"`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType

from visindigo.plain import DUMB_TERMS

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
        self._widen: Callable[[], object] | None = None
        self.readline = self._set_up_readline(completer) if use_readline else None

    def read(self, prompt: str, *, prefill: str = "", history: bool = True) -> str | None:
        """One line without its newline; `prefill` is put on the line to edit, where readline can do that.
        Without `history`, the line is not kept for the up arrow (an answer to a question, a form field)."""
        hook = self.readline is not None and prefill and "\n" not in prefill
        if self._widen is not None:
            self._widen()  # again: readline takes the terminal's width back after a resize
        if hook:
            assert self.readline is not None
            readline = self.readline
            readline.set_startup_hook(lambda: readline.insert_text(prefill))
        try:
            line = input(prompt)
            if not history and self.readline is not None and line:
                self.readline.remove_history_item(self.readline.get_current_history_length() - 1)
            if self.echo:
                print(line, flush=True)
            return line
        except EOFError:
            return None
        finally:
            if hook:
                assert self.readline is not None
                self.readline.set_startup_hook(None)

    def _set_up_readline(self, completer: Completer | None) -> ModuleType | None:
        saved = os.environ.get("TERM")
        os.environ["TERM"] = "dumb"  # read once, when the module loads: no cursor sequences are known
        try:
            import readline
        except ImportError:  # no readline on this Python: the terminal's line editing still works
            return None
        finally:
            if saved is None:
                os.environ.pop("TERM", None)
            else:
                os.environ["TERM"] = saved
        widen = _widener(readline)
        if widen is None:
            return None
        widen()
        for setting in ("enable-bracketed-paste off", "enable-meta-key off", "horizontal-scroll-mode off"):
            readline.parse_and_bind(f"set {setting}")
        readline.parse_and_bind("tab: complete")
        if completer is not None:
            readline.set_completer_delims(" \t\n")
            readline.set_completer(_readline_completer(readline, completer))
        self._widen = widen
        return readline

    def read_message(self, prompt: str, *, prefill: str = "", history: bool = True) -> str | None:
        """A message: one line, or the lines between two `\"\"\"` lines (joined with newlines)."""
        first = self.read(prompt, prefill=prefill, history=history)
        if first is None or first.strip() != BLOCK:
            return first
        lines: list[str] = []
        while (line := self.read("... ", history=False)) is not None:
            if line.strip() == BLOCK:
                break
            lines.append(line)
        return "\n".join(lines)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


#: The width readline is told the screen has: wider than any line typed, so it never wraps or scrolls one itself.
WIDE = 1_000_000


def _widener(readline: ModuleType) -> Callable[[], object] | None:
    """A function that tells GNU readline the screen is `WIDE` columns wide, or None where it cannot be told
    (libedit, or a readline whose library does not offer `rl_set_screen_size`)."""
    if "libedit" in (readline.__doc__ or ""):
        return None
    try:
        import ctypes

        library = ctypes.CDLL(readline.__file__)
        set_size = library.rl_set_screen_size
    except (AttributeError, OSError, TypeError):
        return None
    set_size.argtypes = [ctypes.c_int, ctypes.c_int]
    return lambda: set_size(24, WIDE)


def _readline_completer(readline: ModuleType, completer: Completer) -> Callable[[str, int], str | None]:
    """Readline's calling convention (the word, then the n-th match) over one that returns all matches."""
    matches: list[str] = []

    def complete(word: str, state: int) -> str | None:
        if state == 0:
            line = readline.get_line_buffer()[: readline.get_endidx()]
            matches[:] = [match for match in completer(line) if match.startswith(word)]
        return matches[state] if state < len(matches) else None

    return complete
