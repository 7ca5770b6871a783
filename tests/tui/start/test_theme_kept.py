"""A theme chosen in the command palette is written to config.toml and used at the next start."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.command import CommandPalette

from tests.tui.helpers import make_app, type_text
from visindigo.engine import Center
from visindigo.engine.providers import scripted_provider


def _open(home: Path) -> Center:
    center = Center.open(home)
    center.add_provider(scripted_provider([]))
    return center


async def test_the_palette_theme_is_kept_for_the_next_start(tmp_path: Path) -> None:
    center = _open(tmp_path)
    try:
        app = make_app(center=center)
        async with app.run_test(size=(100, 30)) as pilot:
            assert app.theme != "nord"
            await pilot.press("ctrl+p")
            await pilot.pause()
            assert isinstance(app.screen, CommandPalette)
            await type_text(pilot, "theme")
            await pilot.pause(0.3)
            await pilot.press("enter")  # "Change theme": the list of themes
            await pilot.pause(0.3)
            await type_text(pilot, "nord")
            await pilot.pause(0.3)
            await pilot.press("enter")
            await pilot.pause(0.3)
            assert app.theme == "nord"
    finally:
        center.close()
    config = tomllib.loads((tmp_path / "config" / "config.toml").read_text(encoding="utf-8"))
    assert config["theme"] == "nord"
    center = _open(tmp_path)
    try:
        app = make_app(center=center)
        async with app.run_test(size=(100, 30)):
            assert app.theme == "nord"
    finally:
        center.close()


async def test_the_demo_keeps_its_theme_for_the_run_only(isolated_visindigo_home: Path) -> None:
    app = make_app(demo=True, demo_delay=0.0, demo_live_question=False)
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = "gruvbox"
        await pilot.pause()
        assert app.theme == "gruvbox"
    assert not list(isolated_visindigo_home.rglob("*"))  # the demo writes nowhere
