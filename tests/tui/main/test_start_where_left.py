"""The app opens the dialog the user was last in, not a new empty one (ctrl+n is one key away)."""

from __future__ import annotations

import time
from pathlib import Path

from tests.tui.helpers import main_screen, make_app, wait_until
from visindigo.engine import Center, Role
from visindigo.engine.providers import scripted_provider


def _stored(home: Path) -> tuple[str, str]:
    center = Center.open(home)
    try:
        older = center.create_dialog()
        older.append_message(Role.USER, "made first, changed last")
        newer = center.create_dialog()
        newer.append_message(Role.USER, "made second")
        time.sleep(0.01)
        older.append_message(Role.ASSISTANT, "the last change of all")
        return older.id, newer.id
    finally:
        center.close()


async def test_the_last_changed_dialog_is_open_at_start_and_ctrl_n_starts_a_new_one(tmp_path: Path) -> None:
    last_id, _ = _stored(tmp_path)
    center = Center.open(tmp_path)
    center.add_provider(scripted_provider([]))
    try:
        app = make_app(center=center)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = main_screen(app)
            assert await wait_until(pilot, lambda: screen.dialog.id == last_id)  # just after the first frame
            view = screen.pane.view_for(1)
            assert view is not None and "the last change of all" in view.copy_text()
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert screen.dialog.id != last_id and screen.dialog.message_count == 0
    finally:
        center.close()


async def test_choosing_a_provider_on_the_command_line_starts_a_new_dialog(tmp_path: Path) -> None:
    last_id, _ = _stored(tmp_path)
    center = Center.open(tmp_path)
    center.add_provider(scripted_provider([], id="other"))
    try:
        app = make_app(center=center, provider="other")
        async with app.run_test(size=(100, 30)) as pilot:
            screen = main_screen(app)
            for _ in range(10):  # well past the moment the last dialog would have opened
                await pilot.pause(0.05)
            assert screen.dialog.id != last_id and screen.dialog.provider_id == "other"
    finally:
        center.close()
