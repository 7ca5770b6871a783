"""How far apart a theme's "good" and "bad" colours stay for the common colour vision deficiencies.

Why: the colour-blind theme promises that success and error are never told apart by red against green alone,
which a contrast ratio cannot check (red and green of one lightness have no contrast to speak of, and a
contrast between them says nothing about hue). Each colour is passed through Machado, Oliveira and Fernandes'
(2009) simulation of full protanopia, deuteranopia and tritanopia, in linear RGB, and the two results are
compared by their CIELAB distance (CIE76 ΔE: about 2 is barely seen, over 20 is plainly another colour).
The words and marks that go with every state (docs/themes.md) are what make any theme readable; this measures
the colour-blind theme's own claim.
"""

from __future__ import annotations

from textual.color import Color, rgb_to_lab
from textual.theme import Theme

from .contrast import Palette

#: Machado et al. 2009, severity 1.0, for linear RGB.
DEFICIENCIES: dict[str, tuple[tuple[float, float, float], ...]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _encoded(value: float) -> int:
    v = min(1.0, max(0.0, value))
    return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))


def simulate(colour: Color, deficiency: str) -> Color:
    """`colour` as seen with `deficiency` (a key of `DEFICIENCIES`)."""
    matrix = DEFICIENCIES[deficiency]
    linear = (_linear(colour.r), _linear(colour.g), _linear(colour.b))
    r, g, b = (_encoded(sum(row[i] * linear[i] for i in range(3))) for row in matrix)
    return Color(r, g, b)


def delta_e(first: Color, second: Color) -> float:
    """CIE76 colour difference."""
    a, b = rgb_to_lab(first), rgb_to_lab(second)
    return float(((a.L - b.L) ** 2 + (a.a - b.a) ** 2 + (a.b - b.b) ** 2) ** 0.5)


def good_and_bad_apart(theme: Theme) -> dict[str, float]:
    """ΔE between the theme's success and error text colours (as painted on its background), with normal vision
    ("normal") and with each deficiency."""
    palette = Palette(theme)
    background = palette.background("background")
    good = palette.colour("text-success", background, foreground=True)
    bad = palette.colour("text-error", background, foreground=True)
    apart = {"normal": delta_e(good, bad)}
    apart.update({name: delta_e(simulate(good, name), simulate(bad, name)) for name in DEFICIENCIES})
    return apart
