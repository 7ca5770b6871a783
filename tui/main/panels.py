"""The side panels of the main screen — the dialog tree (sidebar) and the reasoning drawer — shown, hidden and
focused by the screen's keys.

Wide screens lay the panels out beside the messages and remember the user's choice (`-name-closed`); a narrow
screen shows a panel over the messages until it is closed again (`-name-open`), and then esc closes it before
it does anything else. The classes are the screen's (its CSS reads them); this part only sets them.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget

from visindigo.tui.main.sidebar import Sidebar


class Panels:
    """Opens, closes and focuses the screen's side panels."""

    def __init__(self, screen: Screen[Any], sidebar: Sidebar, drawer: Widget) -> None:
        self.screen = screen
        self.sidebar = sidebar
        self.drawer = drawer

    def over_messages(self) -> bool:
        """A panel opened over the messages (narrow screens): esc closes it before anything else."""
        screen = self.screen
        return screen.has_class("-narrow") and (screen.has_class("-sidebar-open") or screen.has_class("-drawer-open"))

    def close_overlays(self) -> None:
        self.screen.remove_class("-sidebar-open", "-drawer-open")
        self.screen.refresh_bindings()

    def toggle(self, name: str) -> None:
        """Flip a panel: on a narrow screen an opened panel takes the whole width until closed again."""
        screen = self.screen
        shown = (self.sidebar if name == "sidebar" else self.drawer).display
        screen.set_class(not shown, f"-{name}-open")
        if screen.has_class("-narrow"):  # a temporary overlay: closing it returns to the automatic layout
            screen.remove_class(f"-{name}-closed")
            screen.refresh_bindings()  # esc closes the panel now, before it cancels
        else:
            screen.set_class(shown, f"-{name}-closed")

    def toggle_sidebar(self) -> None:
        self.toggle("sidebar")
        if self.screen.has_class("-sidebar-open"):
            self.screen.call_after_refresh(self.sidebar.dialog_tree.focus)  # once the panel is laid out

    def focus_tree(self) -> None:
        """The dialog tree gets the keys, its panel opened first when it is hidden."""
        if not self.sidebar.display:
            self.toggle("sidebar")
        self.screen.call_after_refresh(self.sidebar.dialog_tree.focus)  # once the panel is laid out

    def search(self) -> None:
        if not self.sidebar.region.width:
            self.screen.add_class("-sidebar-open")
            self.screen.remove_class("-sidebar-closed")
        self.sidebar.search_input.focus()

    def close_sidebar_overlay(self) -> bool:
        """After opening a dialog from the tree on a narrow screen: back to the messages. True if it closed."""
        if self.screen.has_class("-narrow") and self.screen.has_class("-sidebar-open"):
            self.screen.remove_class("-sidebar-open")
            return True
        return False
