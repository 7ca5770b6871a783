"""Visindigo's colour themes and the loader for user themes.

`register_themes(app, user_theme_dir)` makes the built-in themes and the user's TOML themes available to an app
and returns the problems found in the user's files, for the app to show (never to raise).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .builtin import ANSI, BUILTIN_THEMES, COLOUR_BLIND, DARK, DEFAULT_THEME, HIGH_CONTRAST, LIGHT, NO_COLOR
from .user import ThemeFileError, load_theme_file, load_user_themes, theme_from_mapping

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "ANSI",
    "BUILTIN_THEMES",
    "COLOUR_BLIND",
    "DARK",
    "DEFAULT_THEME",
    "HIGH_CONTRAST",
    "LIGHT",
    "NO_COLOR",
    "ThemeFileError",
    "default_user_theme_dir",
    "load_theme_file",
    "load_user_themes",
    "register_themes",
    "theme_from_mapping",
]


def default_user_theme_dir(config_dir: Path | None = None) -> Path:
    """`<config dir>/themes`, where users put their theme files (the config dir of `engine.paths` by default)."""
    if config_dir is None:
        from visindigo.engine.paths import resolve_paths

        config_dir = resolve_paths().config_dir
    return Path(config_dir) / "themes"


def register_themes(app: App[object], user_theme_dir: Path | str | None = None) -> list[str]:
    """Register the built-in themes, then the user's themes from `user_theme_dir` (None: no user themes).

    Returns one "<file>: <problem>" line per problem; a broken file is skipped, never fatal.
    """
    for theme in (*BUILTIN_THEMES.values(), NO_COLOR):
        app.register_theme(theme)
    if user_theme_dir is None:
        return []
    themes, problems = load_user_themes(Path(user_theme_dir), reserved=app.available_themes)
    for theme in themes:
        app.register_theme(theme)
    return problems
