"""The tools screen: package tools listed with their package, off by default, enabled for a dialog or for
every dialog (saved in the config), asking first unless allowed."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.plugin_package import DIST, PACKAGE
from tests.tui.helpers import main_screen, make_app, make_center, settle, type_text
from visindigo.engine import Center
from visindigo.engine.config import load_config
from visindigo.engine.paths import resolve_paths
from visindigo.tui.setup.package_tools import PackageToolsScreen


def center_with_files(tmp_path: Path) -> Center:
    center = make_center([])
    center.paths = resolve_paths(tmp_path / "home")
    center.config, _ = load_config(center.paths)
    return center


async def open_tools(pilot, app):  # type: ignore[no-untyped-def]
    """As a user: the command palette, "tools from packages", enter."""
    await settle(pilot)
    await pilot.press("ctrl+p")
    await type_text(pilot, "tools from packages")
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()  # not settle(): the modal's worker waits for the screen to close
    screen = app.screen
    assert isinstance(screen, PackageToolsScreen)
    return screen


async def test_tools_are_listed_off_and_enabled_for_one_dialog(example_tools: Path, tmp_path: Path) -> None:
    center = center_with_files(tmp_path)
    app = make_app(center=center)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await open_tools(pilot, app)
        keys = [entry.key for entry in screen.found.tools if entry.package == DIST]
        assert keys == ["broken", "missing", "units", "weather"]
        weather = next(e for e in screen.found.tools if e.key == "weather")
        assert screen.state_of(weather) == "off" and PACKAGE not in sys.modules
        screen.query_one("OptionList").highlighted = screen.found.tools.index(weather)
        await pilot.press("d")
        await pilot.pause()
        dialog = main_screen(app).dialog
        assert dialog.function_ids == ["get_weather"] and center.function_ids == []
        assert dialog.get_function("get_weather").requires_approval  # type: ignore[union-attr]
        assert screen.state_of(weather) == "this dialog"
        assert "on for this dialog" in str(screen.query_one("#status").content)
        broken = next(e for e in screen.found.tools if e.key == "broken")
        screen.query_one("OptionList").highlighted = screen.found.tools.index(broken)
        await pilot.press("d")
        await pilot.pause()
        assert f"{DIST}: broken is not a usable tool" in str(screen.query_one("#status").content)


async def test_every_dialog_and_allow_are_saved_in_the_config(example_tools: Path, tmp_path: Path) -> None:
    center = center_with_files(tmp_path)
    app = make_app(center=center)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await open_tools(pilot, app)
        units = next(e for e in screen.found.tools if e.key == "units")
        screen.query_one("OptionList").highlighted = screen.found.tools.index(units)
        await pilot.press("g", "a")
        await pilot.pause()
        assert center.function_ids == ["to_fahrenheit"]
        assert center.get_function("to_fahrenheit").requires_approval is False  # type: ignore[union-attr]
        config, problems = load_config(center.paths)  # type: ignore[arg-type]
        assert (config.enabled_tools, config.allowed_tools, problems) == (["units"], ["units"], [])
        await pilot.press("g")
        await pilot.pause()
        assert center.function_ids == []
        assert load_config(center.paths)[0].enabled_tools == []  # type: ignore[arg-type]
