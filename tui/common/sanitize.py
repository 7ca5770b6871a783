"""The TUI's name for `engine.sanitize`: one cleaning function for the app and the command line."""

from __future__ import annotations

from visindigo.engine.sanitize import DISPLAY_LIMIT, MAX_HELD, StreamCleaner, clean, clean_line, cut

__all__ = ["DISPLAY_LIMIT", "MAX_HELD", "StreamCleaner", "clean", "clean_line", "cut"]
