"""Attached files written out beside a Markdown export: a folder next to the `.md`, one file per distinct content.

A name in the folder is the first 12 hex digits of the content's hash and the file's own name made safe for any
file system (letters, digits, `.`, `-` and `_`; the rest become `_`), so two files of the same name never
collide, a name from outside can never climb out of the folder (`../`) or carry an escape sequence, and a link
in the Markdown never needs quoting.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from .model import Attachment

__all__ = ["beside", "link_target", "saved_name", "write_files"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def saved_name(attachment: Attachment) -> str:
    """ "3fa1c09b22de-build.log": the file's name in the export's folder."""
    base = _UNSAFE.sub("_", attachment.name.replace("\\", "/").rsplit("/", 1)[-1]).strip("._") or "file"
    return f"{attachment.sha256[:12]}-{base[:80]}"


def beside(markdown_path: str | os.PathLike[str]) -> Path:
    """The folder for the files of the export at `markdown_path`: `chat.md` -> `chat.files/`."""
    path = Path(markdown_path)
    return path.with_name(path.stem + ".files")


def link_target(folder: str, attachment: Attachment) -> str:
    """The link from the Markdown to the file: relative, so the two can be moved together."""
    return quote(f"{folder}/{saved_name(attachment)}")


def write_files(folder: Path, attachments: Iterable[Attachment]) -> list[Path]:
    """Write each distinct content once into `folder` (made, owner only); returns the paths written."""
    written: list[Path] = []
    seen: set[str] = set()
    for attachment in attachments:
        name = saved_name(attachment)
        if name in seen:
            continue
        seen.add(name)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        target = folder / name
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(attachment.data)
        written.append(target)
    return written
