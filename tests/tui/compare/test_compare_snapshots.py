"""Snapshots of the compare screens at 80×24 with fixed content (look at the SVGs before updating them)."""

from __future__ import annotations

from typing import Any

from tests.tui.compare.test_compare_screens import picks
from tests.tui.screens_host import ScreenHost
from visindigo.engine import Center
from visindigo.tui.compare.diff import DiffChoice, DiffScreen
from visindigo.tui.compare.scores import ScoresScreen

ANSWERS = [
    DiffChoice(
        "1. qwen3-8b",
        "The sky is blue because air molecules scatter short (blue) wavelengths of sunlight more than long "
        "ones. This is Rayleigh scattering.\n\nAt sunset the light travels further, so the blue is scattered "
        "away and reds remain.",
    ),
    DiffChoice(
        "2. gpt-4o",
        "The sky looks blue because nitrogen and oxygen scatter short wavelengths of sunlight far more than "
        "long ones. This is called Rayleigh scattering.\n\nAt sunset the light crosses more air, so the blue is "
        "scattered away and reds remain.",
    ),
]


def scores_center() -> Center:
    center = Center()
    for each in picks():
        center.record_pick(each)
    return center


def test_scores_80x24(snap_compare: Any) -> None:
    """You should see a "Scores" box: "Overall  (1/3)", "4 picks, 2 blind · Elo from 1000, K=32", and a table
    (#, Model, Provider, Rating, Wins, Losses) with qwen3-8b first (bold) at 1030.0, 3 wins, 1 loss, then
    gpt-4o (985.3) and gpt-4o-mini (984.7); the keys ←/→ tag · e export CSV · esc close in the bottom border."""
    assert snap_compare(ScreenHost(lambda: ScoresScreen(scores_center())), terminal_size=(80, 24))


def test_diff_side_by_side_80x24(snap_compare: Any) -> None:
    """You should see "Compare alternatives" with "1. qwen3-8b ↔ 2. gpt-4o · 80% the same · side by side", a
    legend, and two bordered columns: the first answer with "is", "air molecules", "travels further" struck
    through in red, the second with "looks", "nitrogen and oxygen", "far", "called", "crosses more air"
    underlined in green; the line breaks between paragraphs are kept."""
    assert snap_compare(ScreenHost(lambda: DiffScreen(ANSWERS, inline=False)), terminal_size=(80, 24))


def test_diff_inline_80x24(snap_compare: Any) -> None:
    """You should see the same pair in one bordered box "1. qwen3-8b → 2. gpt-4o": each change as the struck-
    through red old words followed by the underlined green new words, in reading order."""
    assert snap_compare(ScreenHost(lambda: DiffScreen(ANSWERS)), terminal_size=(80, 24))
