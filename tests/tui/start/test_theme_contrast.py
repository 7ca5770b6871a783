"""Every built-in theme is readable: the WCAG contrast of the pairs the app paints, checked statically (from the
theme variables the stylesheets use) and on the running app (each widget's own text on its own background)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.color import Color

from tests.tui.helpers import make_app, make_center, seeded_dialog, settle
from tests.tui.start.test_themes import _css_blocks
from visindigo.engine import Message, Role
from visindigo.themes import BUILTIN_THEMES, COLOUR_BLIND
from visindigo.themes.contrast import (
    LARGE,
    PAIRS,
    TEXT,
    TEXT_COLOURS,
    Pair,
    Palette,
    contrast_ratio,
    failures,
    measure_theme,
)


def test_the_ratio_is_wcag_s() -> None:
    assert contrast_ratio(Color.parse("#000000"), Color.parse("#FFFFFF")) == pytest.approx(21.0)
    assert contrast_ratio(Color.parse("#777777"), Color.parse("#FFFFFF")) == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio(Color.parse("#FFFFFF"), Color.parse("#777777")) == pytest.approx(4.48, abs=0.01)


def test_translucent_and_automatic_colours_are_blended_as_textual_paints_them() -> None:
    palette = Palette(BUILTIN_THEMES["visindigo-dark"])
    background = palette.background("background")
    assert background == Color.parse("#14151F")
    muted = palette.colour("text-muted", background, foreground=True)  # "auto 60%": white at 60% on the background
    assert muted == background.blend(Color.parse("#FFFFFF"), 0.6)
    # An ANSI colour has no alpha in Textual: "$primary 30%" is the whole colour.
    ansi = Palette(BUILTIN_THEMES["visindigo-ansi"])
    assert ansi.background("primary 30%") == ansi.colour("primary", background, foreground=False)


@pytest.mark.parametrize("name", list(BUILTIN_THEMES))
def test_every_pair_the_app_paints_meets_wcag_aa(name: str) -> None:
    """Text 4.5:1, outlines and marks 3:1; a failing theme is fixed, not excused."""
    bad = [f"{m.describe()} < {m.pair.minimum}:1" for m in failures(BUILTIN_THEMES[name])]
    assert bad == []


def test_a_theme_that_fails_is_caught() -> None:
    faded = COLOUR_BLIND.__class__(
        **{
            **COLOUR_BLIND.__dict__,
            "name": "faded",
            "variables": {**COLOUR_BLIND.variables, "text-disabled": "auto 30%"},
        }
    )
    assert any(m.pair.fg == "text-disabled" for m in failures(faded))
    assert measure_theme(faded)[0].pair.fg == "text-disabled"  # the lowest first


def _text_colours_in_stylesheets() -> set[str]:
    names: set[str] = set()
    for _where, css in _css_blocks():
        names |= set(re.findall(r"(?<![-\w])color:\s*\$([a-z-]+)", css))
    return names


def _text_colours_in_styles() -> set[str]:
    """Theme variables in the app's inline text styles ("bold $text-warning")."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "tui"
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for match in re.finditer(r"[\"'](?:[a-z ]+ )?\$(text[a-z-]*)[\"']", path.read_text(encoding="utf-8")):
            names.add(match.group(1))
    return names


def test_every_text_colour_the_app_uses_is_measured() -> None:
    """The pair list is the app's: a stylesheet that starts painting text in another variable fails here."""
    used = _text_colours_in_stylesheets() | _text_colours_in_styles()
    assert {"text-muted", "text-error", "text-warning", "text-success"} <= used
    measured = set(TEXT_COLOURS) | {p.fg for p in PAIRS}
    assert used - measured == set()


def test_the_pairs_cover_text_selection_cursor_footer_and_outlines() -> None:
    labels = " | ".join(p.label for p in PAIRS)
    for part in ("text-muted on panel", "list cursor", "selected text", "footer key", "focused border", "scrollbar",
                 "button label (warning)", "button label (error)"):  # fmt: skip
        assert part in labels
    assert {p.minimum for p in PAIRS} == {TEXT, LARGE}
    assert all(isinstance(p, Pair) for p in PAIRS)


def _pairs_on_screen(app: Any) -> list[tuple[float, str]]:
    seen = []
    for widget in app.screen.walk_children(with_self=True):
        if not widget.display or not widget.region.area:
            continue
        style = widget.rich_style
        if style.color is None or style.bgcolor is None:
            continue
        fg, bg = Color.from_rich_color(style.color), Color.from_rich_color(style.bgcolor)
        if fg.ansi is not None or bg.ansi is not None:
            continue  # the terminal's palette: measured statically on xterm's
        where = f"{type(widget).__name__}#{widget.id or ''}.{'.'.join(sorted(widget.classes))}"
        seen.append((contrast_ratio(fg, bg), f"{where} {fg.hex6} on {bg.hex6}"))
    return seen


@pytest.mark.parametrize("name", [n for n, t in BUILTIN_THEMES.items() if not t.ansi])
async def test_the_running_app_paints_readable_text_in_each_theme(name: str) -> None:
    """The main screen with a dialog, a tool call and a failed run: each widget's text on its background."""
    center = make_center([])
    dialog = seeded_dialog(center, [("Plan 3 days in Kyoto", "Day 1: temples"), ("and food?", "Ramen")])
    dialog.append_message(Message(Role.USER, "the weather?"))
    dialog.append_message(Message(Role.ASSISTANT, "Let me look.", meta={"status": "interrupted"}))
    app = make_app(center=center)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.theme = name
        await pilot.pause()
        seen = _pairs_on_screen(app)
        assert len(seen) > 10
        low = [f"{ratio:.2f} {where}" for ratio, where in seen if ratio < TEXT]
        assert low == []


def test_the_simulation_is_machado_s() -> None:
    from visindigo.themes.vision import delta_e, simulate

    # pure red and pure green, told apart at once with normal vision, come out as two yellows under deuteranopia
    red, green = Color.parse("#FF0000"), Color.parse("#00FF00")
    assert delta_e(red, green) > 150
    assert delta_e(simulate(red, "deuteranopia"), simulate(green, "deuteranopia")) < 40
    grey = Color.parse("#808080")  # a grey stays grey for every deficiency
    assert all(delta_e(simulate(grey, name), grey) < 2 for name in ("protanopia", "deuteranopia", "tritanopia"))


def test_the_colour_blind_theme_keeps_good_and_bad_apart_for_every_deficiency() -> None:
    """Success and error (the failure bar, ✗, the diff's marks) stay plainly different colours with protanopia,
    deuteranopia and tritanopia; the default dark theme's red and green do not (so the measure can fail)."""
    from visindigo.themes.vision import good_and_bad_apart

    apart = good_and_bad_apart(COLOUR_BLIND)
    assert min(apart.values()) >= 40, apart
    dark = good_and_bad_apart(BUILTIN_THEMES["visindigo-dark"])
    assert dark["normal"] > 40 and dark["deuteranopia"] < 15, dark


@pytest.mark.parametrize("name", list(BUILTIN_THEMES))
async def test_dim_hints_are_drawn_as_the_measured_colour_not_the_terminals_faint(name: str) -> None:
    """Dim hints are the colour the "dim text" pairs measure: Textual turns dim into a colour 66% of the way from
    the background when it writes RGB; on an ANSI theme (the terminal's palette: no RGB to blend, and the
    terminal's faint is often half strength, about 3:1) the app draws them at full strength."""
    from textual.content import Content
    from textual.geometry import Region
    from textual.widgets import Static

    from visindigo.themes.contrast import DIM

    app = make_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        app.theme = name
        hint = Static(Content.assemble("name ", ("a dim hint", "dim")))
        await app.screen.mount(hint)
        await pilot.pause()
        [line] = hint.render_lines(Region(0, 0, hint.size.width, 1))  # as drawn: after the app's line filters
        [segment] = [s for s in line if "dim hint" in s.text]
        [plain] = [s for s in line if "name" in s.text]
        assert segment.style is not None and plain.style is not None
        assert not segment.style.dim  # no faint left for the terminal to draw
        if BUILTIN_THEMES[name].ansi:
            assert segment.style.color == plain.style.color
            return
        fg, bg = Color.from_rich_color(segment.style.color), Color.from_rich_color(segment.style.bgcolor)
        expected = bg.blend(Color.from_rich_color(plain.style.color), DIM)  # what the static pair measures
        assert max(abs(a - b) for a, b in zip(fg.rgb, expected.rgb, strict=True)) <= 1, (fg, expected)
        assert contrast_ratio(fg, bg) >= TEXT


def test_dim_stays_faint_without_colour_and_goes_on_the_terminals_palette() -> None:
    from rich.color import Color as RichColor
    from rich.segment import Segment
    from rich.style import Style

    from visindigo.tui.platform.themes import ReadableDim

    segments = [
        Segment("no colour", Style(dim=True)),  # NO_COLOR: the faint is all that tells a hint
        Segment("palette", Style(dim=True, color=RichColor.parse("bright_red"))),  # an ANSI theme
        Segment("default", Style(dim=True, color=RichColor.default())),
        Segment("rgb", Style(dim=True, color=RichColor.parse("#FFFFFF"))),  # Textual's own filter blends these
    ]
    faint, palette, default, rgb = ReadableDim().apply(segments, Color.parse("#000000"))
    assert faint.style is not None and faint.style.dim
    assert palette.style is not None and not palette.style.dim and palette.style.color == RichColor.parse("bright_red")
    assert default.style is not None and not default.style.dim
    assert rgb.style is not None and rgb.style.dim


def test_the_dim_filter_runs_only_where_textual_leaves_the_terminals_palette() -> None:
    """With Textual's ANSI-to-RGB filter on, every palette colour (dim included) is RGB before `ReadableDim` would
    see it, so it is left out rather than run over every line of every frame for nothing."""
    from rich.color import Color as RichColor
    from rich.segment import Segment
    from rich.style import Style
    from rich.terminal_theme import MONOKAI
    from textual.filter import ANSIToTruecolor, NoColor

    from visindigo.tui.platform.themes import ReadableDim, with_readable_dim

    dim = ReadableDim()
    truecolor = ANSIToTruecolor(MONOKAI)
    assert with_readable_dim([truecolor], dim) == [truecolor]
    assert with_readable_dim([NoColor()], dim)[-1] is dim and with_readable_dim([], dim) == [dim]
    segments = [Segment("palette", Style(dim=True, color=RichColor.parse("bright_red"))), Segment("plain", Style())]
    converted = truecolor.apply(segments, Color.parse("#000000"))
    assert dim.apply(converted, Color.parse("#000000")) is converted  # nothing left for it to change
