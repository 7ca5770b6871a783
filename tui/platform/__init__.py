"""The one seam between Visindigo and Textual's (and Rich's) private names.

Nothing outside this package names a private of either (tests/tui/platform/test_seam.py checks). Each shim
here is checked against the installed Textual before it is used (`compat`) and names the upstream report that
would make it unneeded (docs/upstream/). Nothing is patched when a module is imported: the app calls
`install(app)` once it is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App


def install(app: App[Any]) -> None:
    """Install every shim for `app`: the process-wide ones once (one layout per change, removed widgets freed),
    and on `app` its terminal driver, its output stage and its crash hooks. Each is skipped, with a line in the
    log, on a Textual it was not checked on."""
    from visindigo.tui.platform import crash, layout_once, output_stage, terminal_driver, textual_fixes

    layout_once.install()
    textual_fixes.apply(app)
    terminal_driver.install(app)
    output_stage.install(app)
    crash.install(app)
