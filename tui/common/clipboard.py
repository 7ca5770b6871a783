"""Copying text out of the app: OSC 52 to the terminal's clipboard, and files as the fallback.

OSC 52 is the only clipboard that reaches the user's own machine over SSH, but nothing reports whether the
terminal honoured it (macOS Terminal ignores it; tmux needs `set -g set-clipboard on`). So every copy says
how to save the same text to a file instead, and saving writes where the user can find it.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

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
