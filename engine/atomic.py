"""Writing a file so that a crash leaves either the old text or the new text, never half of each.

The config, the credentials, template files and exports all write this way, so there is one place that gets
the order right: a temporary file beside the target, its text flushed to disk, then one `os.replace`, then
the folder synced so that the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

#: Folders of the user's own files (prompts, their values, the trash): owner only, like the config and data.
PRIVATE_FOLDER = 0o700


def write_text_atomic(path: Path, text: str, *, mode: int | None = None, folder_mode: int = 0o777) -> None:
    """Replace `path` with `text` (UTF-8, newlines as given); raises `OSError`, leaving no temporary file.

    `mode` is given to the file before it replaces the old one; None keeps the temporary file's 0600 (owner
    only: a template or a dialog may hold anything). A missing folder is made with `folder_mode`.
    """
    path.parent.mkdir(mode=folder_mode, parents=True, exist_ok=True)
    import tempfile  # here: it loads random and more, which reading a config does not need

    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable; not possible on every platform, and harmless to skip there."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
