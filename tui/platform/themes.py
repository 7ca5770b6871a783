"""Starting the app in a theme chosen before it runs, without Textual re-parsing every stylesheet for it.

Assigning `App.theme` runs Textual's theme watcher, which asks for the CSS to be refreshed: before the first
frame that is a second parse of every stylesheet, for CSS that never showed the old theme, a share of the
time to the first frame worth keeping. `start_in_theme` does what the watcher does besides — the theme's CSS
variables, its classes and the ANSI colour mapping — and only the last has no public way (Textual's private
`App._refresh_truecolor_filter`). On a Textual this was not checked on (`compat`) the theme is assigned as
usual, which costs that parse and nothing else.

Upstream report: docs/upstream/theme-before-start.md
"""

from __future__ import annotations

from typing import Any

from textual.app import App

from visindigo.tui.platform import compat

UPSTREAM = "docs/upstream/theme-before-start.md"


def start_in_theme(app: App[Any], name: str) -> None:
    """Start `app` in the theme `name` (installed already), before the app runs (nothing is parsed or drawn)."""
    if not compat.enabled("start_theme", app):
        app.theme = name
        return
    app.set_reactive(App.theme, name)
    theme = app.current_theme
    app.stylesheet.set_variables(app.get_css_variables())
    app.set_class(True, f"-theme-{theme.name}", update=False)
    app.set_class(theme.dark, "-dark-mode", update=False)
    app.set_class(not theme.dark, "-light-mode", update=False)
    private: Any = app
    private._refresh_truecolor_filter(app.ansi_theme)
