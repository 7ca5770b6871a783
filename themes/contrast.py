"""WCAG contrast of the colour pairs the app draws, for any theme.

Why here: the themes are judged by what the app actually paints with them, so the list of pairs (`PAIRS`) names
the theme variables the app's stylesheets put together — message text on the three backgrounds, dim hints, the
status line, selections and cursors, diff marks, button labels, footer keys, borders. The contrast test runs
every built-in theme through it (and checks that every variable a stylesheet uses as a text colour is in the
list); `bench/theme_contrast.py` prints each theme's lowest pair. A theme on the terminal's ANSI palette is
measured on xterm's palette with a black background, the palette most terminals start from; the terminal decides
in the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.color import Color
from textual.constants import DIM_FACTOR
from textual.theme import Theme

TEXT = 4.5
"""WCAG AA for text."""
LARGE = 3.0
"""WCAG AA for large text and for the marks and outlines that tell parts apart (WCAG 1.4.11)."""
DIM = DIM_FACTOR
"""How strong dim text is drawn: Textual turns the dim style into the colour this far from the background to the
text's (0.66 unless TEXTUAL_DIM_FACTOR says otherwise) when it writes RGB colours; on an ANSI theme the app draws
dim hints at full strength (`tui.platform.themes.ReadableDim`) rather than leave them to the terminal's faint."""

#: xterm's 16 colours; "ansi_default" is taken as colour 7 on a black background (a dark terminal).
XTERM = [
    *("#000000", "#CD0000", "#00CD00", "#CDCD00", "#0000EE", "#CD00CD", "#00CDCD", "#E5E5E5"),
    *("#7F7F7F", "#FF0000", "#00FF00", "#FFFF00", "#5C5CFF", "#FF00FF", "#00FFFF", "#FFFFFF"),
]
ANSI_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
ANSI_DEFAULT_FOREGROUND = XTERM[7]
ANSI_DEFAULT_BACKGROUND = XTERM[0]


@dataclass(frozen=True)
class Pair:
    """Text (or a mark) of theme variable `fg` drawn on `bg` (which may be translucent, over `under`)."""

    label: str
    fg: str
    bg: str
    minimum: float = TEXT
    under: str = "background"
    ansi: tuple[str, str] | None = None
    """(fg, bg) an ANSI theme paints instead: the stylesheets' `:ansi` rules, since an ANSI colour has no alpha."""


@dataclass(frozen=True)
class Measured:
    """One pair as a theme paints it."""

    pair: Pair
    fg: Color
    bg: Color
    ratio: float

    def describe(self) -> str:
        """ "message text on surface 5.21:1 (#A1A1A5 on #1C1E2B)"."""
        return f"{self.pair.label} {self.ratio:.2f}:1 ({self.fg.hex6} on {self.bg.hex6})"


BACKGROUNDS = ("background", "surface", "panel")
TEXT_COLOURS = (
    "text",
    "foreground",
    "text-muted",
    "text-disabled",
    "text-primary",
    "text-secondary",
    "text-accent",
    "text-warning",
    "text-error",
    "text-success",
)
"""Every text colour the stylesheets use (the contrast test checks the stylesheets against this list)."""

CURSOR = ("block-cursor-foreground", "block-cursor-background")
PAIRS: tuple[Pair, ...] = (
    *(Pair(f"{fg} on {bg}", fg, bg) for fg in TEXT_COLOURS for bg in BACKGROUNDS),
    # dim hints (a model's window, a template's source, a branch's difference) on the three backgrounds; an ANSI
    # theme draws them at full strength (the terminal's palette has no "66% of the way")
    *(Pair(f"dim text on {bg}", f"text {DIM * 100:g}%", bg, ansi=("text", bg)) for bg in BACKGROUNDS),
    Pair("search box text (focused)", "text", "boost", under="surface"),
    *(
        Pair(f"message cursor gutter ({who})", fg, "primary 30%", ansi=CURSOR)
        for who, fg in (("you", "text-primary"), ("ai", "text-success"), ("tool", "text-warning"))
    ),
    Pair("focused input", "text", "primary 25%", under="surface", ansi=CURSOR),
    Pair("field in error", "text", "error 20%", ansi=("text-error", "background")),
    Pair("list cursor", "block-cursor-foreground", "block-cursor-background", under="surface"),
    Pair(
        "list cursor (unfocused)", "block-cursor-blurred-foreground", "block-cursor-blurred-background", under="surface"
    ),
    Pair("selected text in an input", "input-selection-foreground", "input-selection-background", under="surface"),
    Pair("selected text on screen", "screen-selection-foreground", "screen-selection-background"),
    Pair("input cursor", "input-cursor-foreground", "input-cursor-background", under="surface"),
    # the approval, confirm and form buttons (Textual's Button: the label on the variant's colour; under an ANSI
    # theme its :ansi rules draw the label in the variant's colour on the terminal's background instead)
    *(
        Pair(f"button label ({variant})", "button-color-foreground", variant, ansi=(variant, "background"))
        for variant in ("primary", "warning", "error")
    ),
    Pair("button label", "button-foreground", "surface"),
    Pair("footer key", "footer-key-foreground", "panel"),
    Pair("footer description", "footer-description-foreground", "panel"),
    *(Pair(f"markdown heading {n}", f"markdown-h{n}-color", "background") for n in range(1, 7)),
    Pair("link", "link-color", "background"),
    Pair("focused border", "border", "background", LARGE),
    Pair("focused border on surface", "border", "surface", LARGE),
    Pair("unfocused border (composer)", "border-blurred", "background", LARGE),
    Pair("failure bar", "error", "background", LARGE),
    Pair("scrollbar thumb", "scrollbar", "scrollbar-background", LARGE),
)


def luminance(colour: Color) -> float:
    """WCAG 2 relative luminance of an opaque colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.r) + 0.7152 * channel(colour.g) + 0.0722 * channel(colour.b)


def contrast_ratio(first: Color, second: Color) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _ansi(name: str, *, foreground: bool) -> Color:
    word = name.removeprefix("ansi_")
    if word == "default":
        return Color.parse(ANSI_DEFAULT_FOREGROUND if foreground else ANSI_DEFAULT_BACKGROUND)
    bright = word.startswith("bright_")
    return Color.parse(XTERM[ANSI_NAMES.index(word.removeprefix("bright_")) + (8 if bright else 0)])


class Palette:
    """A theme's generated variables, resolved to opaque colours the way Textual paints them."""

    def __init__(self, theme: Theme) -> None:
        self.theme = theme
        self.variables = theme.to_color_system().generate()

    def colour(self, value: str, over: Color, *, foreground: bool) -> Color:
        """`value` ("#hex", "#hex 40%", "auto 87%", "ansi_red", a variable name, "transparent") painted on `over`."""
        value = value.strip()
        alpha = 1.0
        if value.endswith("%"):
            value, _, percent = value.rpartition(" ")
            alpha = float(percent[:-1]) / 100
        if value in self.variables:
            inner = self.colour(self.variables[value], over, foreground=foreground)
            # Textual paints an ANSI colour as it is: the alpha is dropped, not blended.
            return inner if self.variables[value].startswith("ansi_") else over.blend(inner, alpha)
        if value == "transparent":
            return over
        if value == "auto":
            return over.blend(over.get_contrast_text(1.0), alpha)
        if value.startswith("ansi_"):
            return _ansi(value, foreground=foreground)
        colour = Color.parse(value)
        colour = colour.with_alpha(colour.a * alpha)
        return over.blend(colour.with_alpha(1.0), colour.a)

    def background(self, name: str, under: str = "background") -> Color:
        """The opaque colour a background variable paints, over `under` (over the theme's background)."""
        base = self.colour("background", Color.parse(ANSI_DEFAULT_BACKGROUND), foreground=False)
        if name == "background":
            return base
        below = base if under == "background" else self.background(under)
        return self.colour(name, below, foreground=False)

    def measure(self, pair: Pair) -> Measured:
        """`pair` as this theme paints it (a "transparent" text colour keeps the text's own, `$text`)."""
        fg_name, bg_name = pair.ansi if pair.ansi and self.theme.ansi else (pair.fg, pair.bg)
        bg = self.background(bg_name, pair.under)
        fg_name = "text" if self.variables.get(fg_name) == "transparent" else fg_name
        fg = self.colour(fg_name, bg, foreground=True)
        return Measured(pair, fg, bg, contrast_ratio(fg, bg))


def measure_theme(theme: Theme) -> list[Measured]:
    """Every pair in `PAIRS` as `theme` paints it, lowest ratio (relative to its minimum) first."""
    palette = Palette(theme)
    return sorted((palette.measure(pair) for pair in PAIRS), key=lambda m: m.ratio / m.pair.minimum)


def failures(theme: Theme) -> list[Measured]:
    """The pairs below their minimum."""
    return [m for m in measure_theme(theme) if m.ratio < m.pair.minimum - 1e-9]
