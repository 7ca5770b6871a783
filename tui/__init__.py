"""The Textual front end of Visindigo.

Nothing is imported here on purpose: `visindigo --version` must not load Textual, and tests import the
pieces they need (`visindigo.tui.app.VisindigoApp`, widgets, screens) directly.
"""
