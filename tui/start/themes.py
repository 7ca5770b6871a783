"""The app's theme: the built-in and the user's themes installed at start, the configured one chosen before the
first frame, and a theme picked in the palette kept for the next start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from visindigo.engine import Center
from visindigo.tui.platform.themes import start_in_theme

if TYPE_CHECKING:
    from textual.app import App
    from textual.theme import Theme


def install_themes(app: App[Any], center: Center) -> list[str]:
    """Register the themes and start in the configured one; returns the problems found, as notices."""
    try:
        from visindigo.themes import DEFAULT_THEME, register_themes
    except ImportError:  # themes are optional decoration; the app works on Textual's own
        return []
    user_dir = center.paths.config_dir / "themes" if center.paths is not None else None
    notices = [f"theme {problem}" for problem in register_themes(app, user_dir)]
    wanted = str(center.settings.get("theme") or DEFAULT_THEME)
    if wanted in app.available_themes:
        start_in_theme(app, wanted)
    else:
        installed = ", ".join(app.available_themes)
        notices.append(f"theme {wanted!r} is not installed; using {app.theme}. Installed: {installed}")
    return notices


def keep_theme(app: App[Any], center: Center, theme: Theme, *, demo: bool) -> None:
    """A theme picked in the palette is written to config.toml (`theme = ...`), so the next start uses it.

    Without a config (`--demo`, a Center made in code) it lasts for this run only: the demo writes nowhere.
    """
    if center.settings.get("theme") == theme.name:
        return
    center.settings["theme"] = theme.name
    if center.paths is None or demo:
        return
    from visindigo.engine import config as config_writer

    try:
        config_writer.set_theme(center.paths, theme.name)
    except (config_writer.ConfigError, OSError) as error:
        app.notify(f"The theme could not be kept for the next start: {error}", severity="warning", markup=False)
