"""Issue 26 item 18: which way images are drawn — decided from the environment and `[ui] images`, never by asking
the terminal — what `visindigo doctor` says about it, and the app drawing cells wherever it cannot do better."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.helpers import make_app
from visindigo.engine.config import load_config
from visindigo.engine.paths import resolve_paths
from visindigo.tui.platform import graphics
from visindigo.tui.platform.graphics import CELLS, ITERM, KITTY, SIXEL, choose, tmux_passthrough

KITTY_ENV = {"TERM": "xterm-kitty", "COLORTERM": "truecolor"}


@pytest.mark.parametrize(
    ("setting", "environ", "path", "why"),
    [
        ("auto", KITTY_ENV, KITTY, "kitty (TERM=xterm-kitty)"),
        (
            "auto",
            {"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3", "COLORTERM": "truecolor"},
            KITTY,
            "KITTY_WINDOW_ID",
        ),
        ("auto", {"TERM": "xterm-ghostty", "COLORTERM": "truecolor"}, KITTY, "Ghostty"),
        ("auto", {"TERM": "xterm-256color", "TERM_PROGRAM": "ghostty", "COLORTERM": "24bit"}, KITTY, "Ghostty"),
        # a program started from a kitty shell inherits KITTY_WINDOW_ID: its own TERM_PROGRAM tells it apart
        (
            "auto",
            {"TERM": "xterm-256color", "KITTY_WINDOW_ID": "3", "TERM_PROGRAM": "vscode"},
            CELLS,
            "TERM=xterm-256color",
        ),
        ("auto", {**KITTY_ENV, "TMUX": "/tmp/tmux-0/default,1,0"}, CELLS, "inside tmux"),
        ("auto", {**KITTY_ENV, "STY": "1.pts"}, CELLS, "inside screen"),
        ("auto", {"TERM": "xterm-kitty"}, CELLS, "COLORTERM"),  # over SSH COLORTERM is often not passed on
        ("auto", {**KITTY_ENV, "NO_COLOR": "1"}, CELLS, "NO_COLOR"),
        # terminals that paint sixel or iTerm2 pictures at the cursor
        ("auto", {"TERM": "wezterm", "TERM_PROGRAM": "WezTerm", "COLORTERM": "truecolor"}, ITERM, "WezTerm"),
        ("auto", {"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}, ITERM, "iTerm2"),
        ("auto", {"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, ITERM, "iTerm2"),  # over SSH
        ("auto", {"TERM": "xterm", "TERM_PROGRAM": "mintty"}, ITERM, "mintty"),
        ("auto", {"TERM": "foot"}, SIXEL, "foot"),
        ("auto", {"TERM": "mlterm"}, SIXEL, "mlterm"),
        ("auto", {"TERM": "xterm-256color", "KONSOLE_VERSION": "230805"}, SIXEL, "Konsole"),
        ("auto", {"TERM": "xterm-256color", "KONSOLE_VERSION": "210800"}, CELLS, "not a terminal known"),
        ("auto", {"TERM": "xterm-256color", "WT_SESSION": "5e1f"}, SIXEL, "Windows Terminal"),
        ("auto", {"TERM": "xterm-256color", "TERMINAL_NAME": "contour"}, SIXEL, "contour"),
        # xterm draws sixel only when started as a VT340, which its environment does not tell
        ("auto", {"TERM": "xterm", "XTERM_VERSION": "XTerm(379)"}, CELLS, "not a terminal known"),
        ("auto", {"TERM": "foot", "TMUX": "/tmp/tmux-0/default,1,0"}, CELLS, "inside tmux"),
        ("sixel", {"TERM": "xterm"}, SIXEL, '[ui] images = "sixel"'),
        ("iterm", {"TERM": "xterm"}, ITERM, '[ui] images = "iterm"'),
        ("auto", {"TERM": "xterm-256color", "COLORTERM": "truecolor"}, CELLS, "not a terminal known"),
        ("auto", {}, CELLS, "TERM=(not set)"),
        ("cells", KITTY_ENV, CELLS, '[ui] images = "cells"'),
        ("kitty", {"TERM": "xterm-256color"}, KITTY, '[ui] images = "kitty"'),
    ],
)
def test_the_choice_comes_from_the_environment_and_the_setting(
    setting: str, environ: dict[str, str], path: str, why: str
) -> None:
    choice = choose(setting, environ)
    assert choice.path == path and why in choice.why, choice
    assert not choice.tmux


def test_kitty_forced_inside_tmux_wraps_each_command_for_its_passthrough() -> None:
    choice = choose("kitty", {"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0"})
    assert choice.path == KITTY and choice.tmux and "passthrough" in choice.why
    two = "\x1b_Ga=t,i=1;QUJD\x1b\\\x1b_Ga=p,U=1,i=1,c=2,r=1\x1b\\"
    assert tmux_passthrough(two) == (
        "\x1bPtmux;\x1b\x1b_Ga=t,i=1;QUJD\x1b\x1b\\\x1b\\\x1bPtmux;\x1b\x1b_Ga=p,U=1,i=1,c=2,r=1\x1b\x1b\\\x1b\\"
    )


def test_the_setting_is_checked_like_every_other(tmp_path: Path) -> None:
    paths = resolve_paths(config_path=tmp_path / "config.toml", data_dir=tmp_path / "data")
    paths.config_file.write_text('[ui]\nimages = "cells"\n', encoding="utf-8")
    config, problems = load_config(paths)
    assert problems == [] and config.data["ui"] == {"images": "cells"}
    paths.config_file.write_text('[ui]\nimages = "sixels"\n', encoding="utf-8")
    config, problems = load_config(paths)
    assert [p.key for p in problems] == ["ui.images"]
    assert "images" not in config.data.get("ui", {})  # dropped: auto


def test_doctor_says_which_way_images_are_drawn(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[ui]\nimages = "cells"\n', encoding="utf-8")
    base = {"PATH": "/usr/bin:/bin", "VISINDIGO_HOME": str(home), "HOME": str(home)}

    def doctor(**environ: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "visindigo", "doctor", "--offline"],
            capture_output=True, text=True, timeout=60, env={**base, **environ}, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        return next(line for line in result.stdout.splitlines() if "images:" in line)

    assert doctor(**KITTY_ENV).endswith('images: half-block cells — [ui] images = "cells"')
    (home / "config" / "config.toml").write_text("", encoding="utf-8")
    assert "images: kitty graphics (Unicode placeholders) — kitty (TERM=xterm-kitty)" in doctor(**KITTY_ENV)
    assert "images: half-block cells — inside tmux" in doctor(**KITTY_ENV, TMUX="/tmp/tmux-0/default,1,0")
    assert "images: sixel over half-block cells (painted while the picture holds still) — foot" in doctor(TERM="foot")


async def test_a_headless_app_draws_cells_even_when_kitty_is_chosen() -> None:
    app = make_app()
    graphics.install(app, "kitty")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert graphics.images_for(app) is None  # snapshots and Pilot tests keep their half blocks


async def test_a_headless_app_paints_no_sixel_or_iterm_pictures_either() -> None:
    for setting in ("sixel", "iterm"):
        app = make_app()
        graphics.install(app, setting)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert graphics.pixel_path(app) is None and graphics.images_for(app) is None


def test_a_full_repaint_after_a_picture_goes_clears_the_screen_first() -> None:
    """Where no cell changes, a cell write would not wipe the pixels: the screen is cleared (ED 2) inside the
    frame that repaints every cell."""
    from visindigo.tui.platform.output_stage import OutputStage

    stage = OutputStage(10, 2)
    first = stage.frame()
    assert "\x1b[2J" not in first and len(stage.written) == 2
    stage.invalidate(erase=True)
    again = stage.frame()
    assert again.startswith("\x1b[0m\x1b[2J") and len(stage.written) == 2
    stage.invalidate()
    assert "\x1b[2J" not in stage.frame()  # only once
