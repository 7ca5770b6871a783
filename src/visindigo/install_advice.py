"""Advice that fits how the app was installed: a pipx or `uv tool` user is not told to run pip.

pipx keeps each app in its own venv, marked by a `pipx_metadata.json`; `uv tool install` marks its venv with a
`uv-receipt.toml`. Running pip inside either works once but is undone by the next upgrade, so the advice is
the tool's own command. Anything else is a venv or a system Python, where pip of that interpreter is right.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

InstallMethod = Literal["pipx", "uv", "pip"]


def install_method(prefix: str | Path | None = None) -> InstallMethod:
    """How the environment at `prefix` (default: this interpreter's) was made."""
    root = Path(prefix if prefix is not None else sys.prefix)
    if (root / "pipx_metadata.json").exists():
        return "pipx"
    if (root / "uv-receipt.toml").exists():
        return "uv"
    return "pip"


def extra_command(extra: str, packages: list[str], prefix: str | Path | None = None) -> str:
    """The command that adds the optional dependencies `extra` (whose packages are `packages`)."""
    root = Path(prefix) if prefix is not None else None
    method = install_method(root)
    if method == "pipx":
        return "pipx inject visindigo " + " ".join(packages)
    if method == "uv":
        return f"uv tool install 'visindigo[{extra}]'"
    python = str(root / "bin" / "python") if root is not None else sys.executable
    return f"{python} -m pip install 'visindigo[{extra}]'"
