"""The final render of a streamed reply colours its code blocks in place (issue 14 §3)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Label

from tests.tui.helpers import wait_until
from visindigo.tui import platform
from visindigo.tui.chat.markdown.live_markdown import LiveMarkdown, PlainFence

REPLY = "Some text.\n\n```python\ndef f(value):\n    return value + 1\n```\n\nThe end.\n"


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them

    def compose(self) -> ComposeResult:
        yield LiveMarkdown(live=True)


def _styled(fence: PlainFence) -> bool:
    return bool(fence.query_one("#code-content", Label).content.spans)


async def test_streamed_code_blocks_are_coloured_in_place_without_mounting_the_reply_again() -> None:
    app = Host()
    async with app.run_test() as pilot:
        markdown = app.query_one(LiveMarkdown)
        for piece in (REPLY[:20], REPLY[20:45], REPLY[45:]):
            await markdown.append(piece)
        await pilot.pause()
        blocks = list(markdown.children)
        fence = markdown.query_one(PlainFence)
        assert not _styled(fence)  # plain while streaming
        assert markdown.colour_in_place(REPLY)
        assert await wait_until(pilot, lambda: _styled(fence), seconds=30)  # (coloured in a thread)
        assert list(markdown.children) == blocks  # the same blocks: nothing was mounted again
        assert not markdown.live
        app.theme = "textual-light"  # a theme change recolours it, as for any code block
        await pilot.pause()
        assert _styled(fence)


async def test_a_stream_that_differs_from_the_final_text_is_left_for_a_full_render() -> None:
    app = Host()
    async with app.run_test() as pilot:
        markdown = app.query_one(LiveMarkdown)
        await markdown.append(REPLY[:30])
        await pilot.pause()
        assert not markdown.colour_in_place(REPLY)
        assert markdown.live  # unchanged: the caller renders the reply in full
