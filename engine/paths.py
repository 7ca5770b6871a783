"""Where Visindigo keeps its config and its data.

Order of precedence, strongest first: an explicit `config_path` / `data_dir` (the CLI's `--config` and
`--data-dir`), then a `home` argument, then the `VISINDIGO_HOME` environment variable, then the platform's
directories from platformdirs. A home holds `config/` and `data/`, so one variable moves everything — which is
how every test keeps away from the real home directory. Nothing here touches the disk until `ensure_dirs`.
"""

from __future__ import annotations

import os
from pathlib import Path

from .record import record

APP_NAME = "visindigo"
HOME_ENV = "VISINDIGO_HOME"
CONFIG_FILE_NAME = "config.toml"
CREDENTIALS_FILE_NAME = "credentials.toml"
DB_FILE_NAME = "dialogs.sqlite3"
LOCK_FILE_NAME = "visindigo.lock"


@record(frozen=True, slots=True)
class Paths:
    """The files of one Visindigo installation; the credentials file sits beside the config file."""

    config_file: Path
    data_dir: Path

    @property
    def config_dir(self) -> Path:
        return self.config_file.parent

    @property
    def credentials_file(self) -> Path:
        """API keys typed into the app; created with mode 0600 so only the user can read it."""
        return self.config_file.parent / CREDENTIALS_FILE_NAME

    @property
    def prompt_dir(self) -> Path:
        """The default prompt-template folder (the config's `prompt_dir` may name another)."""
        return self.config_file.parent / "prompts"

    @property
    def db_file(self) -> Path:
        return self.data_dir / DB_FILE_NAME

    @property
    def logs_dir(self) -> Path:
        """The app's own log (`visindigo.log`, with --debug) and one log per stdio MCP server."""
        return self.data_dir / "logs"

    @property
    def lock_file(self) -> Path:
        """Held while a store is open, so a second instance on the same data cannot write over the first."""
        return self.data_dir / LOCK_FILE_NAME


def resolve_paths(
    home: str | os.PathLike[str] | None = None,
    *,
    config_path: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
) -> Paths:
    """The paths to use, by the precedence in the module docstring; `~` is expanded everywhere."""
    base = home if home is not None else os.environ.get(HOME_ENV) or None
    if base is not None:
        root = Path(base).expanduser()
        default_config = root / "config" / CONFIG_FILE_NAME
        default_data = root / "data"
    else:
        import platformdirs  # here: with a home given it is not needed (5 ms of `visindigo ask`'s start)

        default_config = platformdirs.user_config_path(APP_NAME) / CONFIG_FILE_NAME
        default_data = platformdirs.user_data_path(APP_NAME)
    config_file = Path(config_path).expanduser() if config_path is not None else default_config
    data = Path(data_dir).expanduser() if data_dir is not None else default_data
    return Paths(config_file=config_file.absolute(), data_dir=data.absolute())


def ensure_dirs(paths: Paths) -> None:
    """Create the config and data folders (mode 0700: dialogs and keys are nobody else's business)."""
    for folder in (paths.config_dir, paths.data_dir):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
