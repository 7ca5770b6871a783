"""Built-in themes, user TOML themes (good and broken), and the rule that TCSS uses theme variables only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from textual.app import App
from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES

from visindigo.themes import (
    BUILTIN_THEMES,
    DEFAULT_THEME,
    NO_COLOR,
    ThemeFileError,
    default_user_theme_dir,
    load_user_themes,
    register_themes,
    theme_from_mapping,
)
from visindigo.themes.user import check_variable

REPO = Path(__file__).resolve().parents[3]


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_five_builtin_themes_dark_light_high_contrast_colour_blind_and_ansi() -> None:
    assert list(BUILTIN_THEMES) == [
        "visindigo-dark",
        "visindigo-light",
        "visindigo-high-contrast",
        "visindigo-colour-blind",
        "visindigo-ansi",
    ]
    assert BUILTIN_THEMES["visindigo-dark"].dark and not BUILTIN_THEMES["visindigo-light"].dark
    assert BUILTIN_THEMES["visindigo-ansi"].ansi
    assert DEFAULT_THEME in BUILTIN_THEMES
    for theme in BUILTIN_THEMES.values():
        assert theme.to_color_system().generate()["primary"]
        for name, value in theme.variables.items():
            assert check_variable(name, value) is None, (theme.name, name, value)


def test_ansi_theme_uses_only_the_sixteen_colours_and_the_terminal_default() -> None:
    theme = BUILTIN_THEMES["visindigo-ansi"]
    values = [
        theme.primary,
        theme.secondary,
        theme.accent,
        theme.warning,
        theme.error,
        theme.success,
        theme.foreground,
        theme.background,
        theme.surface,
        theme.panel,
        theme.boost,
        *theme.variables.values(),
    ]
    colours = [v for v in values if v not in ("none", "bold", "reverse")]
    assert all(
        re.fullmatch(r"ansi_(default|(bright_)?(black|red|green|yellow|blue|magenta|cyan|white))", v) for v in colours
    ), colours


def test_high_contrast_text_is_never_faded() -> None:
    theme = BUILTIN_THEMES["visindigo-high-contrast"]
    colours = theme.to_color_system().generate()
    assert theme.background == "#000000" and theme.foreground == "#FFFFFF"
    assert {v for k, v in theme.variables.items() if k.startswith("text")} <= {"#FFFFFF", "#E0E0E0", "#B0B0B0"}
    assert colours["text-muted"] == "#E0E0E0"


async def test_register_themes_makes_every_builtin_selectable() -> None:
    app: App[None] = App()
    assert register_themes(app) == []
    async with app.run_test(size=(40, 10)):
        for name in BUILTIN_THEMES:
            app.theme = name
            assert app.current_theme.name == name
        app.theme = "visindigo-ansi"
        assert app.native_ansi_color  # the terminal's own palette is used, not truecolour approximations


async def test_a_user_theme_is_loaded_and_can_extend_a_builtin(tmp_path: Path) -> None:
    write(
        tmp_path,
        "midnight.toml",
        """
        primary = "#7AA2F7"
        background = "#1A1B26"
        dark = true
        [variables]
        border = "#FF9E64"
        block-cursor-text-style = "bold"
    """.replace("\n        ", "\n"),
    )
    write(tmp_path, "paper.toml", 'name = "paper-white"\nextends = "visindigo-light"\naccent = "#AA00AA"\n')
    app: App[None] = App()
    assert register_themes(app, tmp_path) == []
    midnight = app.get_theme("midnight")
    paper = app.get_theme("paper-white")
    assert midnight is not None and paper is not None
    assert midnight.primary == "#7AA2F7" and midnight.variables["border"] == "#FF9E64"
    assert paper.primary == BUILTIN_THEMES["visindigo-light"].primary and paper.accent == "#AA00AA"
    assert paper.dark is False
    async with app.run_test(size=(40, 10)):
        app.theme = "midnight"
        assert app.get_css_variables()["border"] == "#FF9E64"


def test_broken_theme_files_are_reported_with_file_and_problem_and_skipped(tmp_path: Path) -> None:
    bad_toml = write(tmp_path, "a-bad-toml.toml", 'primary = "#fff\n')
    bad_colour = write(tmp_path, "b-colour.toml", 'primary = "not-a-colour"\n')
    no_primary = write(tmp_path, "c-empty.toml", "dark = false\n")
    builtin_name = write(tmp_path, "d-clash.toml", 'name = "visindigo-dark"\nprimary = "#123456"\n')
    bad_type = write(tmp_path, "e-type.toml", 'primary = "#123456"\ndark = "yes"\n')
    bad_extends = write(tmp_path, "f-extends.toml", 'extends = "no-such-theme"\n')
    (tmp_path / "g-binary.toml").write_bytes(b"\xff\xfe\x00primary")
    partly = write(
        tmp_path,
        "h-partly.toml",
        'primary = "#123456"\ncolour = "red"\n[variables]\nborder = "nonsense"\nbordr = "#ffffff"\n'
        'footer-key-foreground = "#FFFF00"\nblock-cursor-text-style = "#123456"\n',
    )
    write(tmp_path, "notes.txt", "not a theme")
    app: App[None] = App()
    problems = register_themes(app, tmp_path)
    by_file = {p.split(": ", 1)[0]: [] for p in problems}
    for problem in problems:
        by_file[problem.split(": ", 1)[0]].append(problem.split(": ", 1)[1])
    assert "not valid TOML" in by_file[str(bad_toml)][0]
    assert "'primary': 'not-a-colour' is not a colour" in by_file[str(bad_colour)][0]
    assert "'primary' is required" in by_file[str(no_primary)][0]
    assert "already used by a built-in theme" in by_file[str(builtin_name)][0]
    assert "'dark' must be true or false" in by_file[str(bad_type)][0]
    assert "'extends' names no known theme" in by_file[str(bad_extends)][0]
    assert by_file[str(tmp_path / "g-binary.toml")] == ["not UTF-8 text"]
    partly_problems = " | ".join(by_file[str(partly)])
    assert "unknown key(s) ignored: colour" in partly_problems
    assert "variable 'border' ignored: 'nonsense' is not a colour" in partly_problems
    assert "variable 'bordr' ignored: Textual has no variable of that name" in partly_problems
    assert "variable 'block-cursor-text-style' ignored: '#123456' is not a text style" in partly_problems
    # Only the partly-good file became a theme, without its bad variables; the built-in kept its colours.
    user_names = set(app.available_themes) - set(TEXTUAL_THEMES) - set(BUILTIN_THEMES) - {NO_COLOR.name}
    assert user_names == {"h-partly"}
    partly_theme = app.get_theme("h-partly")
    assert partly_theme is not None and partly_theme.variables == {"footer-key-foreground": "#FFFF00"}
    assert app.get_theme("visindigo-dark") == BUILTIN_THEMES["visindigo-dark"]


def test_two_files_with_one_name_keep_the_first(tmp_path: Path) -> None:
    write(tmp_path, "one.toml", 'name = "same"\nprimary = "#111111"\n')
    second = write(tmp_path, "two.toml", 'name = "same"\nprimary = "#222222"\n')
    themes, problems = load_user_themes(tmp_path, reserved={})
    assert [(t.name, t.primary) for t in themes] == [("same", "#111111")]
    assert problems == [f"{second}: the name 'same' is already used by another theme file; set another 'name'"]


def test_a_missing_theme_folder_is_not_a_problem(tmp_path: Path) -> None:
    assert load_user_themes(tmp_path / "absent", reserved={}) == ([], [])


@pytest.mark.parametrize("value", ["#fff; } Screen { display: none", "$primary", "red\nblue", "", "bold"])
def test_variable_values_that_are_not_one_colour_are_refused(value: str) -> None:
    assert check_variable("border", value) is not None


def test_theme_name_must_be_safe() -> None:
    with pytest.raises(ThemeFileError, match="'name' must be"):
        theme_from_mapping({"name": "bad name!", "primary": "#000000"}, default_name="x", known={})


def test_default_user_theme_dir_is_under_the_config_dir(isolated_visindigo_home: Path) -> None:
    assert default_user_theme_dir() == isolated_visindigo_home / "config" / "themes"


# --- TCSS uses theme variables only -------------------------------------------------------------------------

_LITERAL_COLOUR = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgb|rgba|hsl|hsla)\(|"
    r":\s*(?:[^;$]*\s)?(?:red|green|blue|yellow|magenta|cyan|white|black|grey|gray|orange|purple|pink|"
    r"ansi_\w+)\b"
)


def _css_blocks() -> list[tuple[str, str]]:
    """Every .tcss file and every DEFAULT_CSS / CSS string in the tui and themes packages."""
    blocks = []
    for folder in (REPO / "tui", REPO / "themes"):
        for path in folder.rglob("*.tcss"):
            blocks.append((str(path.relative_to(REPO)), path.read_text(encoding="utf-8")))
        for path in folder.rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id in ("DEFAULT_CSS", "CSS") for t in node.targets)
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                ):
                    blocks.append((f"{path.relative_to(REPO)}:{node.lineno}", node.value.value))
    return blocks


def test_the_literal_colour_check_catches_literals() -> None:
    for css in (
        "A { background: #123456; }",
        "A { color: red; }",
        "A { border: round rgb(1,2,3); }",
        "A { background: ansi_red; }",
    ):
        assert _LITERAL_COLOUR.search(css), css
    assert not _LITERAL_COLOUR.search("A { background: $surface 60%; border: round $primary; }")


def test_tcss_uses_theme_variables_only() -> None:
    blocks = _css_blocks()
    assert any("common/approval.py" in where for where, _ in blocks)
    offenders = [f"{where}: {m.group(0)}" for where, css in blocks for m in _LITERAL_COLOUR.finditer(css)]
    assert offenders == []


@pytest.mark.parametrize("name", ["visindigo-light", "visindigo-ansi", "nord"])
async def test_the_configured_theme_is_the_one_the_first_frame_is_drawn_in(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The theme is chosen before the app runs without Textual's watcher (whose re-parse of all the CSS cost ~5%
    of the time to the first frame): its colours, classes and ANSI handling must still be the theme's."""
    from textual.color import Color
    from textual.filter import ANSIToTruecolor

    from tests.tui.helpers import make_app, make_center

    reparsed: list[bool] = []
    refresh_css = App.refresh_css

    def counted(app: App[None], animate: bool = True) -> None:
        reparsed.append(True)
        refresh_css(app, animate)

    monkeypatch.setattr(App, "refresh_css", counted)
    center = make_center([])
    center.settings["theme"] = name
    app = make_app(center=center)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        theme = app.current_theme
        assert app.theme == theme.name == name
        assert reparsed == []  # started in the theme: nothing was parsed twice
        assert Color.parse(theme.background or "") == app.screen.styles.background
        assert app.stylesheet._variables["primary"] == app.get_css_variables()["primary"]
        assert f"-theme-{name}" in app.classes
        assert ("-dark-mode" in app.classes, "-light-mode" in app.classes) == (theme.dark, not theme.dark)
        truecolor = [f for f in app._filters if isinstance(f, ANSIToTruecolor)]
        assert [f.enabled for f in truecolor] == [not app.native_ansi_color]
        app.theme = "visindigo-dark"  # and changing it afterwards still re-parses and repaints
        await pilot.pause()
        assert reparsed and app.screen.styles.background == Color.parse(app.current_theme.background or "")
