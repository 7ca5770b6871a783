"""The Textual patches the app installs when it is made (`VisindigoApp.__init__`), installed for the tests
that host the app's widgets in an app of their own."""

from __future__ import annotations

from visindigo.tui.platform import layout_once, textual_fixes

layout_once.install()
textual_fixes.apply()
