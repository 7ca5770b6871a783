"""A message pane can be made for any dialog and mounted anywhere: two side by side, on two dialogs answering at
the same time, both stream live, each at its own frame rate, without knowing of each other."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Markdown

from visindigo.engine import Center
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.providers import FinishPart, Pause, TextPart, scripted_provider
from visindigo.tui import platform
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.workbench import Workbench


class SideBySide(App[None]):
    """Two panes and nothing else: no main screen, no tree, no drawer; the app is the workbench's run host."""

    def __init__(self, center: Center) -> None:
        super().__init__()
        platform.install(self)  # the seam's shims, as the app installs them
        self.workbench = Workbench(center, host=self)
        self.left_dialog = center.create_dialog()
        self.right_dialog = center.create_dialog()
        self.left = MessagePane(self.workbench, self.left_dialog, fps=20)
        self.right = MessagePane(self.workbench, self.right_dialog, fps=10)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield self.left
            yield self.right

    def start(self, run: Coroutine[Any, Any, None], *, name: str, group: str) -> None:
        self.run_worker(run, name=name, group=group, exclusive=True, exit_on_error=False)

    def cancel(self, group: str) -> None:
        self.workers.cancel_group(self, group)

    async def approve(self, request: ToolCallRequest) -> Approval:
        return Approval.DENY


def _script(request: Any) -> list[Any]:
    """Each dialog gets an answer naming its question, in two parts with a long pause between them."""
    question = request.messages[-1].content
    return [TextPart(f"{question}: first part. "), Pause(6.0), TextPart(f"{question}: second part."),
            FinishPart("stop")]  # fmt: skip


def _source(pane: MessagePane) -> str:
    view = pane.streaming_view
    return view.query_one(Markdown).source if view is not None else ""


async def test_two_panes_on_two_running_dialogs_both_stream_live() -> None:
    center = Center()
    center.add_provider(scripted_provider(_script))
    app = SideBySide(center)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.workbench.send("left question", app.left_dialog)
        app.workbench.send("right question", app.right_dialog)
        for _ in range(100):  # the first parts are drawn at each pane's next frame; the second come 6 s later
            await pilot.pause(0.05)
            if "first part" in _source(app.left) and "first part" in _source(app.right):
                break
        assert app.workbench.runs.is_running(app.left_dialog.id) and app.workbench.runs.is_running(app.right_dialog.id)
        # mid-stream, each pane shows its own dialog's text, live, and nothing of the other's
        assert _source(app.left) == "left question: first part. "
        assert _source(app.right) == "right question: first part. "
        assert app.left.streaming_view is not None and app.left.streaming_view.index is None
        # one frame timer each, at the pane's own rate
        left, right = app.left.frames.timer, app.right.frames.timer
        assert left is not None and right is not None and left is not right
        assert (app.left.frames.fps, app.right.frames.fps) == (20, 10)
        await app.workers.wait_for_complete()
        await pilot.pause()
        for pane, dialog, side in ((app.left, app.left_dialog, "left"), (app.right, app.right_dialog, "right")):
            assert pane.streaming_view is None
            view = pane.view_for(1)
            assert view is not None
            assert view.query_one(Markdown).source == f"{side} question: first part. {side} question: second part."
            assert dialog.message_at(1).content == view.query_one(Markdown).source
            assert [v.index for v in pane.views] == [0, 1]
