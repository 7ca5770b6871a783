"""A long session holds a bounded number of widgets and render caches (issue 14 §1).

The message list removes the views that leave its window; these tests check that removed views are really
freed (counted through the garbage collector): Textual's `StylesCache.get_inner_outer` cache used to pin every
removed widget's render cache, and `data_bind` watchers pinned every footer key a footer rebuild replaced
(see `tui/textual_fixes.py`).
"""

from __future__ import annotations

import gc
from typing import Any

from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Footer, Label
from textual.widgets._footer import FooterKey

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.tui import platform
from visindigo.tui.chat.message_view import MessageView
from visindigo.tui.chat.view_window import FOLLOW_KEEP
from visindigo.tui.platform import textual_fixes


def _alive(kind: type) -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if isinstance(thing, kind))


class Rebuilding(App[None]):
    def __init__(self) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them

    BINDINGS = [("x", "bell", "Ring")]

    def compose(self) -> ComposeResult:
        yield Vertical(id="cards")
        yield Footer()


async def test_removed_widgets_free_their_render_caches() -> None:
    textual_fixes.apply()
    app = Rebuilding()
    async with app.run_test(size=(60, 50)) as pilot:
        cards = app.query_one("#cards")
        counts = []
        for round_number in range(12):
            await cards.remove_children()
            await cards.mount_all(Label(f"card {round_number}.{n}", classes="card") for n in range(40))
            await pilot.pause()
            counts.append(_alive(StylesCache))
        # 40 labels live at a time: a pinned cache per removed label would add 40 per round (up to 1,024 labels).
        # The last few rounds' caches may still be referenced for a frame or two (a layout skipped for widgets
        # that cannot scroll, see layout_once, leaves the last arrangement in place a little longer): what must
        # not happen is growth once that has settled.
        assert counts[-1] - counts[5] < 10, counts


async def test_footer_rebuilds_do_not_keep_their_removed_keys() -> None:
    textual_fixes.apply()
    app = Rebuilding()
    async with app.run_test(size=(60, 20)) as pilot:
        counts = []
        for _ in range(10):
            app.refresh_bindings()  # the footer rebuilds its keys (as on every focus change)
            await pilot.pause()
            await pilot.pause()
            counts.append(_alive(FooterKey))
        assert counts[-1] == counts[4], counts  # (settled after a few rebuilds; a leak adds a round's keys each time)


def _markdown_answer(n: int) -> str:
    return f"## Part {n}\n\nA paragraph of answer {n}.\n\n- one\n- two\n\n```python\nx = {n}\n```\n\nThe end of {n}."


async def test_reply_after_reply_keeps_live_views_and_caches_bounded() -> None:
    replies = 26  # 5 replies past the full window: a leak of one cache per reply shows as +5 (one of 4 as +20)
    app = make_app([answer(_markdown_answer(n)) for n in range(replies)])
    async with app.run_test(size=(100, 30)) as pilot:
        screen: Any = main_screen(app)
        views, caches = [], []
        for n in range(replies):
            await type_text(pilot, f"q{n}")
            await pilot.press("enter")
            await settle(pilot)
            if n >= 21:  # the window kept while following is full: from here on each reply replaces the oldest
                views.append(_alive(MessageView))
                caches.append(_alive(StylesCache))
        assert len(screen.pane.views) == FOLLOW_KEEP
        assert max(views) - min(views) <= 1, views  # the views removed from the window are freed
        # flat (a removed view's widgets kept their caches: +4 or more per reply, 38 over 8 replies before the fix)
        assert caches[-1] - caches[0] <= 3, caches
