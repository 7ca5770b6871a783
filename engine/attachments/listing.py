"""Which files a user can mean: the files under the start folder (the `@` list), and a pasted or dropped path.

Terminals paste a file dropped on them as its path: quoted (`'/home/me/My Shots/a.png'`), or with the spaces
escaped (`/home/me/My\\ Shots/a.png`), several separated by spaces. `pasted_paths` reads them the way a POSIX
shell would (`shlex`), and gives them back only when every word names an existing file — anything else is text
the user meant to paste.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["MAX_LISTED", "SKIPPED_FOLDERS", "files_under", "pasted_paths"]

#: The `@` list stops here: a home folder or a monorepo would otherwise take seconds to walk.
MAX_LISTED = 5000
#: Folders that hold what nobody attaches (and many files): left out of the `@` list, still attachable by path.
SKIPPED_FOLDERS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".ruff_cache", ".tox"}
)
#: A paste longer than this is text, not a dropped file.
_MAX_PASTE = 8192


def files_under(start_folder: str | os.PathLike[str], *, limit: int = MAX_LISTED) -> list[str]:
    """The regular files under `start_folder` as relative POSIX paths, shallow ones first, at most `limit`.

    Links are not followed into other folders (a link to `/` would list the machine); hidden folders and the
    usual build and version-control folders are left out.
    """
    found: list[str] = []
    for path in _walk(Path(start_folder)):
        found.append(path)
        if len(found) >= limit:
            break
    return found


def _walk(start: Path) -> Iterator[str]:
    level = [start]
    while level:
        deeper: list[Path] = []
        for folder in level:
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in SKIPPED_FOLDERS and not entry.name.startswith("."):
                            deeper.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=True):
                        yield Path(entry.path).relative_to(start).as_posix()
                except OSError:
                    continue
        level = deeper


def pasted_paths(text: str, start_folder: str | os.PathLike[str]) -> list[str]:
    """The paths in a paste when the paste is nothing but paths of existing regular files (quoted, escaped, or
    `file://` URLs as some file managers drop them); [] otherwise, and the paste is text.

    Each word must look like a path (hold a `/`, as a dropped file's absolute path does), so pasting the word
    `README.md` into a question stays text even where such a file exists.
    """
    text = text.strip()
    if not text or len(text) > _MAX_PASTE:
        return []
    try:
        import shlex  # only a paste needs it: `visindigo ask` imports this module and starts without it

        words = shlex.split(text)
    except ValueError:  # an unclosed quote: text
        return []
    start = Path(start_folder).expanduser()
    paths: list[str] = []
    for word in words:
        if word.startswith("file://"):
            from urllib.parse import unquote, urlparse

            word = unquote(urlparse(word).path)
        if "/" not in word:
            return []
        full = Path(word).expanduser()
        full = full if full.is_absolute() else start / full
        try:
            if not full.is_file():
                return []
        except OSError:
            return []
        paths.append(word)
    return paths
