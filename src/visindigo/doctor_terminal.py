"""What `visindigo doctor` says about the terminal: what it claims to be, and what that means for copying.

Colours come from TERM / COLORTERM (what Textual reads too). Synchronized output (DEC mode 2026, which stops
a half-drawn frame from flickering) is asked of the terminal itself with DECRQM: a terminal that knows the
mode answers `ESC [ ? 2026 ; n $ y`, one that does not stays silent, so the wait is short. tmux, screen and
SSH change where a copy lands: over SSH only OSC 52 reaches the user's own clipboard, and tmux passes it on
only with `set-clipboard` on.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

SYNC_QUERY = b"\x1b[?2026$p"
_SYNC_ANSWER = re.compile(rb"\x1b\[\?2026;(\d)\$y")
SYNC_STATES = {
    "0": "not recognised",
    "1": "supported (on)",
    "2": "supported",
    "3": "supported (always on)",
    "4": "not supported (permanently off)",
}


@dataclass
class TerminalFacts:
    term: str
    colours: str
    size: str
    synchronized_output: str
    multiplexer: str
    over_ssh: bool
    copy_notes: list[str] = field(default_factory=list)


def colour_depth(environ: Mapping[str, str]) -> str:
    colorterm = environ.get("COLORTERM", "").lower()
    term = environ.get("TERM", "")
    if environ.get("NO_COLOR"):
        return "none (NO_COLOR is set)"
    if colorterm in ("truecolor", "24bit"):
        return "truecolor (COLORTERM)"
    if "256color" in term:
        return "256 colours (TERM)"
    if term in ("", "dumb"):
        return "none (TERM is empty or dumb)"
    return "16 colours (set COLORTERM=truecolor if the terminal can do more)"


def query_synchronized_output(fd: int, timeout: float = 0.3) -> str:
    """Ask the terminal on `fd` (a tty, read and write) whether it knows mode 2026; "" when it is not a tty."""
    import termios
    import tty

    if not os.isatty(fd):
        return ""
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        os.write(fd, SYNC_QUERY)
        answer = b""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                break
            answer += os.read(fd, 64)
            match = _SYNC_ANSWER.search(answer)
            if match:
                return SYNC_STATES.get(match.group(1).decode(), "answered")
        return f"no answer within {timeout:.1f} s (not supported)"
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, saved)


def _sync_from_tty(timeout: float) -> str:
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return "not asked: no terminal (output is redirected or there is no controlling tty)"
    try:
        return query_synchronized_output(fd, timeout) or "not asked: not a terminal"
    except OSError as error:
        return f"not asked: {error.strerror or error}"
    finally:
        os.close(fd)


def _tty_size() -> os.terminal_size | None:
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        return None
    try:
        return os.get_terminal_size(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def tmux_set_clipboard(environ: Mapping[str, str]) -> str:
    """tmux's `set-clipboard` option ("on", "external", "off"), or "" when it cannot be read."""
    if not environ.get("TMUX") or shutil.which("tmux") is None:
        return ""
    try:
        result = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True, timeout=2
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""


def terminal_facts(environ: Mapping[str, str] | None = None, *, ask_terminal: bool = True) -> TerminalFacts:
    environ = os.environ if environ is None else environ
    size = shutil.get_terminal_size(fallback=(0, 0))
    if not size.columns and ask_terminal:  # output piped (`visindigo doctor | pbcopy`): ask the terminal itself
        size = _tty_size() or size
    over_ssh = bool(environ.get("SSH_CONNECTION") or environ.get("SSH_TTY") or environ.get("SSH_CLIENT"))
    if environ.get("TMUX"):
        multiplexer = "tmux"
    elif environ.get("STY"):
        multiplexer = "screen"
    else:
        multiplexer = "none"
    notes: list[str] = []
    if multiplexer == "tmux":
        option = tmux_set_clipboard(environ)
        notes.append("inside tmux: a copy also goes to tmux's paste buffer (prefix + ] pastes it)")
        if option == "off":
            notes.append("tmux has set-clipboard off: OSC 52 stops at tmux; add `set -g set-clipboard on`")
        elif option:
            notes.append(f"tmux set-clipboard is {option}: OSC 52 is passed on to the terminal")
    if multiplexer == "screen":
        notes.append("inside screen: OSC 52 usually does not get through; alt+s saves a copy to a file")
    if over_ssh:
        notes.append(
            "over SSH: only OSC 52 reaches your own clipboard, if your terminal allows it "
            "(iTerm2, kitty, WezTerm, Windows Terminal do; GNOME Terminal does not)"
        )
    else:
        tools = [name for name in ("wl-copy", "xclip", "xsel", "pbcopy") if shutil.which(name)]
        if tools:
            notes.append(f"local: copies also go to the system clipboard with {tools[0]}")
        else:
            notes.append("local: no clipboard tool (wl-copy, xclip, xsel, pbcopy) found; copies rely on OSC 52")
    return TerminalFacts(
        term=environ.get("TERM", "") or "(not set)",
        colours=colour_depth(environ),
        size=f"{size.columns}x{size.lines}" if size.columns else "unknown",
        synchronized_output=_sync_from_tty(0.3) if ask_terminal else "not asked",
        multiplexer=multiplexer,
        over_ssh=over_ssh,
        copy_notes=notes,
    )
