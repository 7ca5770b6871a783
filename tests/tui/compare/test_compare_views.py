"""The flows the main screen runs for scores, diff and divergences, in a tiny host app."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

from tests.tui.compare.test_compare_screens import a_family
from tests.tui.screens_host import screen_text
from visindigo.engine import Center
from visindigo.themes import register_themes
from visindigo.tui import platform
from visindigo.tui.compare.diff import DiffScreen
from visindigo.tui.compare.divergences import DivergenceScreen, JumpTarget
from visindigo.tui.compare.scores import ScoresScreen
from visindigo.tui.compare.views import choose_divergence, diff_point, show_diff, show_scores
from visindigo.tui.workbench.branches import alternatives


class FlowHost(App[None]):
    """Runs one flow in a worker, as the main screen does, and keeps what it returned."""

    def __init__(self, flow: Callable[[App[Any]], Coroutine[Any, Any, Any]]) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them
        self._flow = flow
        self.results: list[Any] = []
        register_themes(self)

    def compose(self) -> ComposeResult:
        yield Static("main screen")

    def on_mount(self) -> None:
        async def run() -> None:
            self.results.append(await self._flow(self))

        self.run_worker(run(), exit_on_error=False)


def test_the_point_to_diff_is_at_or_above_the_cursor() -> None:
    points = {1: [], 5: [], 9: []}
    assert diff_point(points, None) == 9
    assert [diff_point(points, cursor) for cursor in (0, 1, 4, 5, 8, 12)] == [1, 1, 1, 5, 5, 9]
    assert diff_point({}, 3) is None


async def test_the_diff_flow_opens_the_alternatives_at_the_cursor() -> None:
    center, ids = a_family()
    root = center.get_dialog(ids["root"])
    assert root is not None
    choices = alternatives(root, center.dialogs)
    app = FlowHost(lambda app: show_diff(app, root, choices, 1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        assert "Alternatives at message 2" in screen_text(app)
        assert [c.label for c in app.screen.choices] == ["1. qwen", "2. llama"]
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_no_alternatives_is_a_note_not_a_screen() -> None:
    center = Center()
    alone = center.create_dialog()
    app = FlowHost(lambda app: show_diff(app, alone, {}, None))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        assert not isinstance(app.screen, DiffScreen)
        assert any("No alternatives to compare" in n.message for n in app._notifications)


async def test_the_divergence_flow_returns_where_to_jump_and_scores_open() -> None:
    center, ids = a_family()
    other = center.get_dialog(ids["other"])
    assert other is not None
    app = FlowHost(lambda app: choose_divergence(app, center, other))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DivergenceScreen)
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [JumpTarget(ids["root"], 0)]

    scores = FlowHost(lambda app: show_scores(app, center))
    async with scores.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(scores.screen, ScoresScreen)
        await pilot.press("escape")
        await pilot.pause()
    assert scores.results == [None]
