"""Copying that tells the truth: use every clipboard that is known to be there, and say which ones were used.

OSC 52 is always sent (it is the only way to the user's own machine over SSH), but nothing reports whether
the terminal honoured it — many do not, tmux needs `set-clipboard on`, GNOME Terminal ignores it. So:
- inside tmux, the text is also loaded into tmux's paste buffer (`tmux load-buffer -`), which always works;
- on this machine (not over SSH), a system clipboard tool is used when one is installed: wl-copy under
  Wayland, xclip or xsel under X11, pbcopy on macOS;
- over SSH, the notice says the text was sent to the terminal's clipboard by OSC 52, and how to check;
- under `visindigo serve`, OSC 52 reaches the browser page, whose terminal puts it on the browser's clipboard.
The notice names what was done; alt+s (save to a file) stays the way out when nothing arrived.

`read_clipboard` is the other direction, for templates' {{CLIPBOARD}}: tmux's buffer or a local tool; a
terminal cannot be asked for its clipboard reliably, so over SSH outside tmux it says it cannot.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT = 3.0

Runner = Callable[..., "subprocess.CompletedProcess[bytes]"]


@dataclass(frozen=True, slots=True)
class ClipboardTool:
    name: str
    copy: tuple[str, ...]
    paste: tuple[str, ...]


_TOOLS = (
    ClipboardTool("wl-copy", ("wl-copy",), ("wl-paste", "--no-newline")),
    ClipboardTool("xclip", ("xclip", "-selection", "clipboard"), ("xclip", "-selection", "clipboard", "-o")),
    ClipboardTool("xsel", ("xsel", "--clipboard", "--input"), ("xsel", "--clipboard", "--output")),
    ClipboardTool("pbcopy", ("pbcopy",), ("pbpaste",)),
)


def over_ssh(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("SSH_CONNECTION") or environ.get("SSH_TTY") or environ.get("SSH_CLIENT"))


def system_tool(environ: Mapping[str, str], platform: str = sys.platform) -> ClipboardTool | None:
    """The system clipboard tool for this session, or None (over SSH, no display, or none installed)."""
    if over_ssh(environ):
        return None
    for tool in _TOOLS:
        if tool.name == "wl-copy" and not environ.get("WAYLAND_DISPLAY"):
            continue
        if tool.name in ("xclip", "xsel") and not environ.get("DISPLAY"):
            continue
        if tool.name == "pbcopy" and platform != "darwin":
            continue
        if shutil.which(tool.copy[0], path=environ.get("PATH")):
            return tool
    return None


@dataclass
class CopyResult:
    """Where the text went; `notice` is the sentence for the user."""

    done: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    notice: str = ""


def _run(run: Runner, command: tuple[str, ...] | list[str], text: str, environ: Mapping[str, str]) -> str:
    """ "" on success, else why not."""
    try:
        result = run(list(command), input=text.encode("utf-8"), capture_output=True, timeout=TIMEOUT, env=dict(environ))
    except (OSError, subprocess.SubprocessError) as error:
        return str(error)
    if result.returncode != 0:
        return (result.stderr or b"").decode("utf-8", "replace").strip()[:120] or f"exit status {result.returncode}"
    return ""


def copy_text(
    text: str,
    what: str,
    *,
    web: bool = False,
    environ: Mapping[str, str] | None = None,
    run: Runner = subprocess.run,
) -> CopyResult:
    """Copy `text` to tmux and the system clipboard where they are, and describe everything done
    (`what`: "last answer", …). The caller has sent OSC 52 already (`App.copy_to_clipboard`)."""
    environ = os.environ if environ is None else environ
    result = CopyResult()
    size = f"{len(text):,} characters, {text.count(chr(10)) + 1} lines"
    if web:
        result.done.append("browser")
        result.notice = f"Copied the {what} ({size}) to your browser's clipboard."
        return result
    places: list[str] = []
    if environ.get("TMUX"):
        problem = _run(run, ("tmux", "load-buffer", "-"), text, environ)
        if problem:
            result.failed.append(f"tmux: {problem}")
        else:
            result.done.append("tmux")
            places.append("tmux's paste buffer (prefix ] pastes)")
    tool = system_tool(environ)
    if tool is not None:
        problem = _run(run, tool.copy, text, environ)
        if problem:
            result.failed.append(f"{tool.name}: {problem}")
        else:
            result.done.append(tool.name)
            places.insert(0, f"the system clipboard ({tool.name})")
    if result.done:
        result.notice = f"Copied the {what} ({size}) to " + " and ".join(places) + "."
        if over_ssh(environ):
            result.notice += " Also sent to your terminal's clipboard (OSC 52)."
    elif over_ssh(environ):
        result.notice = (
            f"Sent the {what} ({size}) to your terminal's clipboard (OSC 52): paste to check — if nothing "
            "arrives, your terminal does not allow OSC 52; alt+s saves it to a file."
        )
    else:
        result.notice = (
            f"Sent the {what} ({size}) to the terminal's clipboard (OSC 52); no clipboard tool (wl-copy, xclip, "
            "xsel) was found to confirm it. Nothing arrived? alt+s saves it to a file."
        )
    if result.failed:
        result.notice += " Failed: " + "; ".join(result.failed) + "."
    return result


def read_clipboard(environ: Mapping[str, str] | None = None, run: Runner = subprocess.run) -> tuple[str | None, str]:
    """(text, "") from tmux's buffer or the system clipboard, or (None, why it could not be read)."""
    environ = os.environ if environ is None else environ
    reasons: list[str] = []
    tool = system_tool(environ)
    commands: list[tuple[str, tuple[str, ...]]] = []
    if tool is not None:
        commands.append((tool.name, tool.paste))
    if environ.get("TMUX"):
        commands.append(("tmux", ("tmux", "save-buffer", "-")))
    for name, command in commands:
        try:
            result = run(list(command), capture_output=True, timeout=TIMEOUT, env=dict(environ))
        except (OSError, subprocess.SubprocessError) as error:
            reasons.append(f"{name}: {error}")
            continue
        if result.returncode == 0:
            return result.stdout.decode("utf-8", "replace"), ""
        reasons.append(f"{name}: {(result.stderr or b'').decode('utf-8', 'replace').strip()[:80] or 'failed'}")
    if not commands:
        if over_ssh(environ):
            return None, "over SSH the clipboard of your own machine cannot be read (outside tmux)"
        return None, "no clipboard tool (wl-paste, xclip, xsel, pbpaste) and not inside tmux"
    return None, "; ".join(reasons)


# Files as the fallback: every copy says how to save the same text to a file instead, and saving writes where
# the user can find it, never over an existing file.

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def code_blocks(markdown: str) -> list[str]:
    """The code blocks of a Markdown text, in order (fenced and indented), without their fences."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    return [token.content for token in tokens if token.type in ("fence", "code_block")]


def file_stem(title: str, what: str) -> str:
    """A safe, recognisable file name stem: visindigo-<title>-<what>-<time>."""
    parts = [_UNSAFE_NAME.sub("-", part).strip("-")[:40] for part in ("visindigo", title, what)]
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return "-".join(p for p in [*parts, stamp] if p)


def save_text(text: str, directories: list[Path], stem: str, suffix: str = ".md") -> Path:
    """Write `text` to a new file in the first writable directory; returns its path.

    Never overwrites: an existing name gets a counter. Raises OSError naming every directory tried when none
    can be written.
    """
    problems = []
    for directory in directories:
        try:
            directory.mkdir(parents=True, exist_ok=True)
            for attempt in range(1000):
                name = f"{stem}{'-' + str(attempt) if attempt else ''}{suffix}"
                path = directory / name
                try:
                    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                except FileExistsError:
                    continue
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    handle.write(text)
                return path
        except OSError as error:
            problems.append(f"{directory}: {error.strerror or error}")
    raise OSError("could not save the text: " + "; ".join(problems or ["no directory to write to"]))
