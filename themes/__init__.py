"""Colour themes for the Visindigo TUI (no logic beyond registering them)."""
