"""What the main screen opens to look back at comparisons and branches: scores, a diff, the divergence list.

Each is a coroutine for one of the screen's workers (a modal is waited for with `push_screen_wait`), given exactly
what it works on, so the main screen needs one line per action. The screens are imported when first opened.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from textual.app import App

from visindigo.engine import Center, Dialog

if TYPE_CHECKING:
    from visindigo.tui.compare.divergences import JumpTarget


def diff_point(alternatives: Mapping[int, Sequence[Dialog]], cursor_index: int | None) -> int | None:
    """Which point with alternatives to diff: the one at the message cursor, else the nearest one above it, else
    the first; None when the dialog has none."""
    if not alternatives:
        return None
    points = sorted(alternatives)
    if cursor_index is None:
        return points[-1]
    above = [point for point in points if point <= cursor_index]
    return above[-1] if above else points[0]


async def show_scores(app: App[Any], center: Center) -> None:
    from visindigo.tui.compare.scores import ScoresScreen

    await app.push_screen_wait(ScoresScreen(center))


async def show_diff(
    app: App[Any], dialog: Dialog, alternatives: Mapping[int, Sequence[Dialog]], cursor_index: int | None
) -> None:
    """The word diff of the alternatives at the cursor's point (see `diff_point`), or a note that there are none."""
    from visindigo.tui.compare.diff import DiffScreen, diff_choices

    point = diff_point(alternatives, cursor_index)
    if point is None:
        app.notify("No alternatives to compare: regenerate an answer, edit a question or compare models first.")
        return
    choices = diff_choices(alternatives[point], point)
    if len(choices) < 2:
        app.notify("Only one of the alternatives there has a message to compare.")
        return
    title = f"Alternatives at message {point + 1}"
    await app.push_screen_wait(DiffScreen(choices, title=title))


async def choose_divergence(app: App[Any], center: Center, dialog: Dialog) -> JumpTarget | None:
    """Where the user wants to go from the divergence list of `dialog`'s family (None: nowhere)."""
    from visindigo.engine.compare.divergence import divergences
    from visindigo.tui.compare.divergences import DivergenceScreen

    return await app.push_screen_wait(DivergenceScreen(divergences(center, dialog.id), title=dialog.title))
