"""NO_COLOR (https://no-color.org): the app's own colours are off, its structure (boxes, cursor, bold) stays."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.filter import NoColor

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text
from tests.tui.start.no_color_pty import colour_codes, first_frame, text_styles


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return {**env, **extra}


def test_the_real_app_under_no_color_writes_no_colour_but_keeps_boxes_and_styles(tmp_path: Path) -> None:
    stream = first_frame(_env(NO_COLOR="1"), tmp_path / "home")
    assert b"Keys" in stream and "╭".encode() in stream  # the footer and the composer's box are drawn
    assert colour_codes(stream) == set()
    assert {1, 7} <= text_styles(stream)  # bold and reverse (the cursor, the focused parts) carry the structure


def test_without_no_color_the_same_start_is_in_colour(tmp_path: Path) -> None:
    """The check above would pass on a blank screen; here the same measure sees the colours."""
    stream = first_frame(_env(), tmp_path / "home")
    assert {38, 48} <= colour_codes(stream)


async def test_no_color_selects_the_no_colour_theme_over_the_configured_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    center = make_center([answer("Day 1: temples")])
    center.settings["theme"] = "visindigo-light"
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.no_color and app.theme == "visindigo-no-color"
        assert any(isinstance(f, NoColor) for f in app.get_line_filters())
        await type_text(pilot, "Plan 3 days")
        await pilot.press("enter")
        await settle(pilot)
        screen = main_screen(app)
        await pilot.press("ctrl+o")  # into the messages: the cursor is on the answer
        await pilot.pause()
        assert screen.pane.cursor is not None
        gutter = screen.pane.cursor.query_one(".gutter")
        assert gutter.styles.text_style.reverse  # the message cursor shows without a colour
