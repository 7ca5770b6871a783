"""A key typed right after the esc that closes a screen reaches the screen below, however fast it follows.

When one read from the terminal holds both (a slow SSH link, a busy machine), the driver posts both keys to the
app at once. esc used to go on to the focused widget's queue before the screen's binding closed it, so the app
took the next key while the closing screen was still on top, and it was lost there: the hostile-terminal pty
test's intermittent failure (esc, then alt+t for the tree; the delete question after it never came). The
screens that close on esc now bind it with priority (`close_on_escape`), so the screen is gone before the app
reads the next key.
"""

from __future__ import annotations

import pytest
from textual import events

from tests.tui.helpers import main_screen, make_app, settle
from visindigo.tui.main.dialog_tree import DialogTree

#: the key that opens a screen closed by esc, and the screen's class name
SCREENS = [
    ("f2", "ModelPickerScreen"),
    ("f3", "ProvidersScreen"),
    ("f4", "MCPServersScreen"),
    ("f6", "TemplateLibraryScreen"),
    ("alt+k", "ScoresScreen"),
    ("alt+l", "TimelineScreen"),
]


async def esc_then_alt_t(key: str, *, in_one_read: bool) -> tuple[str, object]:
    """Open the screen with `key`, then esc and alt+t; returns the screen opened and the widget focused after."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        for _ in range(200):
            await pilot.pause(0.01)
            if app.screen is not main_screen(app):
                break
        opened = type(app.screen).__name__
        if in_one_read:  # as the driver posts the keys of one read: one after the other, nothing in between
            app.post_message(events.Key("escape", None))
            app.post_message(events.Key("alt+t", None))
        else:
            await pilot.press("escape")
            await settle(pilot)
            await pilot.press("alt+t")
        await settle(pilot)
        assert app.screen is main_screen(app)
        return opened, app.focused


@pytest.mark.parametrize(("key", "screen"), SCREENS, ids=[key for key, _ in SCREENS])
async def test_a_key_in_the_same_read_as_the_esc_that_closes_a_screen_is_not_lost(key: str, screen: str) -> None:
    opened, focused = await esc_then_alt_t(key, in_one_read=True)
    assert opened == screen
    assert isinstance(focused, DialogTree), f"alt+t after esc on {screen} was lost: focus on {focused!r}"


async def test_the_same_keys_one_at_a_time_do_the_same() -> None:
    opened, focused = await esc_then_alt_t("f2", in_one_read=False)
    assert opened == "ModelPickerScreen" and isinstance(focused, DialogTree)
