"""Idle means silent: no frame is drawn while nothing happens, unless `[ui] cursor_blink` asks for a blinking
cursor (issue 14 §4)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from textual._compositor import ChopsUpdate, LayoutUpdate

import visindigo.tui.app as app_module
from visindigo.engine import Center
from visindigo.tui.app import AppOptions, VisindigoApp, configured_cursor_blink
from visindigo.tui.chat.composer import ComposerInput


class CountingApp(VisindigoApp):
    """Counts the compositor updates the app would send to a terminal."""

    CSS_PATH = str(Path(app_module.__file__).with_name("app.tcss"))
    updates = 0

    def _display(self, screen: Any, renderable: Any) -> None:
        if isinstance(renderable, LayoutUpdate | ChopsUpdate):
            self.updates += 1
        super()._display(screen, renderable)


def center_with_ui(tmp_path: Path, ui: str) -> Center:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text(
        textwrap.dedent(
            f"""
            default_provider = "local"

            [providers.local]
            kind = "openai"
            base_url = "http://127.0.0.1:9/v1"
            default_model = "m"

            [ui]
            {ui}
            """
        )
    )
    return Center.open(tmp_path)


async def updates_while_idle(
    center: Center, seconds: float = 1.6, quiet_first: bool = True
) -> tuple[int, ComposerInput]:
    app = CountingApp(center, AppOptions())
    async with app.run_test(size=(100, 30)) as pilot:
        # Start-up is done after a second without a frame (waiting up to 20 s on a loaded machine).
        for _ in range(20 if quiet_first else 2):
            before = app.updates
            await pilot.pause(1.0)
            if app.updates == before:
                break
        composer = app.screen.query_one(ComposerInput)
        assert composer.has_focus
        before = app.updates
        await pilot.pause(seconds)
        return app.updates - before, composer


async def test_an_idle_app_draws_nothing_by_default(tmp_path: Path) -> None:
    center = center_with_ui(tmp_path, "stream_fps = 4")
    try:
        assert configured_cursor_blink(center) is False
        updates, composer = await updates_while_idle(center)
    finally:
        center.close()
    assert composer.cursor_blink is False
    assert updates == 0


async def test_a_blinking_cursor_is_drawn_when_the_user_asked_for_it(tmp_path: Path) -> None:
    center = center_with_ui(tmp_path, "cursor_blink = true")
    try:
        assert configured_cursor_blink(center) is True
        updates, composer = await updates_while_idle(center, quiet_first=False)
    finally:
        center.close()
    assert composer.cursor_blink is True
    assert updates >= 2  # the cursor's cell, on and off every half second


async def test_a_cursor_blink_that_is_not_true_or_false_is_reported_and_ignored(tmp_path: Path) -> None:
    center = center_with_ui(tmp_path, 'cursor_blink = "yes"')
    try:
        assert configured_cursor_blink(center) is False
        assert any("ui.cursor_blink" in notice and "true or false" in notice for notice in center.notices)
    finally:
        center.close()
