"""The TUI's regenerate cuts where a comparison's regenerate does (`engine.branching.answer_cut`)."""

from __future__ import annotations

from tests.engine.test_branching import mixed
from visindigo.engine import Center
from visindigo.engine.branching import answer_cut
from visindigo.tui import branches


def test_the_cut_is_the_one_regenerate_makes() -> None:
    dialog = mixed(Center())
    for index in (None, *range(7)):
        assert answer_cut(dialog, index) == branches.regenerate_cut(dialog, index)
