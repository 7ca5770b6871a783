"""Reading and writing the TOML files: atomically, without losing what the app does not understand.

A write reads the file as it is now with tomlkit, which keeps comments, blank lines, key order and the way
each value is written; changes only the keys it is asked to change; and replaces the file in one `os.replace`
(the new text is complete on disk first), so a crash mid-write leaves either the old file or the new one. A
file with a syntax error is never written over: the user's text would be lost. Reading for use (not for a
change) is `tomllib`, the standard library's reader.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_text_atomic
from .problems import ConfigError

if TYPE_CHECKING:
    from tomlkit.toml_document import TOMLDocument

# tomlkit (~10 ms to import) is loaded by the writers alone: every start reads the config, few change it.

CONFIG_HEADER = (
    "# Visindigo configuration. Every setting is described on the docs page Configuration (docs/configuration.md).\n"
    "# Visindigo changes only the settings you change in the app: your comments, order and keys are kept.\n"
    "# `visindigo config example` prints every setting with its description.\n\n"
)
CREDENTIALS_HEADER = (
    "# API keys typed into Visindigo. Readable by you alone (mode 0600); never copy it into config.toml.\n\n"
)


def read_toml(path: Path) -> dict[str, Any] | None:
    """The parsed file, or None when it does not exist. Raises `tomllib.TOMLDecodeError` and `OSError`."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return None


def read_for_update(path: Path) -> TOMLDocument:
    """The file's document before a change (comments and layout kept); raises `ConfigError` rather than let a
    broken file be replaced."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return tomlkit.document()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{path} cannot be read: {reason}") from None
    try:
        tomllib.loads(text)  # tomlkit accepts a few documents the standard reader rejects; the app reads with this
        return tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
        raise ConfigError(
            f"{path} has a syntax error ({exc}); fix it in an editor first — Visindigo does not write over it, "
            "so nothing in it is lost."
        ) from None


def write_toml(path: Path, document: dict[str, Any], *, header: str = "", private: bool = False) -> None:
    """Replace `path` atomically with `document`; `private` makes it mode 0600 (credentials).

    `header` starts a file that is new (or was empty); an existing file keeps its own first lines. A symlink
    (a dotfiles manager's) is followed, so the file it points to is updated and the link stays.
    """
    import tomlkit

    target = path.resolve() if path.is_symlink() else path
    text = tomlkit.dumps(document)
    if header and not _has_text(target):
        text = header + text
    mode = 0o600 if private else _mode_of(target, 0o644)
    try:
        write_text_atomic(target, text, mode=mode, folder_mode=0o700)
    except OSError as exc:
        raise ConfigError(f"{path} cannot be written: {exc.strerror or exc}") from None


def _has_text(path: Path) -> bool:
    try:
        return bool(path.read_text(encoding="utf-8").strip())
    except (OSError, UnicodeDecodeError):
        return False


def _mode_of(path: Path, default: int) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return default


def is_private(path: Path) -> bool:
    """Whether only the owner can read the file (always true where POSIX modes do not apply)."""
    if os.name != "posix":
        return True
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o077 == 0
    except OSError:
        return True
