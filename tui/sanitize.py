"""The TUI's name for `engine.sanitize`: one cleaning function for the app and the command line."""

from __future__ import annotations

from ..engine.sanitize import MAX_HELD, StreamCleaner, clean, clean_line

__all__ = ["MAX_HELD", "StreamCleaner", "clean", "clean_line"]
