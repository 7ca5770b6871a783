"""`listen`: a widget gets the workbench's news in its own queue, and a stream's `TextArrived` at most once while
one waits there — the widget's side keeps that account, so nothing the producer reads is written by a reader."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widget import Widget

from visindigo.engine import Center
from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench import events as news


class Listener(Widget):
    def __init__(self, workbench: Workbench) -> None:
        super().__init__()
        self.workbench = workbench
        self.heard: list[object] = []
        #: As a pane whose frames run: they draw what arrives, so text is no news to it.
        self.drawing = False

    def on_mount(self) -> None:
        self.stop_listening = listen(
            self, self.workbench, news.TextArrived, news.RunEnded, drawing=lambda: self.drawing
        )

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        self.heard.append(message.event)


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.workbench = Workbench(Center())
        self.listeners = [Listener(self.workbench), Listener(self.workbench)]

    def compose(self) -> ComposeResult:
        yield from self.listeners


async def test_a_burst_of_text_wakes_each_listener_once_and_the_next_burst_again() -> None:
    app = Host()
    async with app.run_test() as pilot:
        first, second = app.listeners
        for _ in range(500):  # a fast stream's deltas, reported before any listener had its turn
            app.workbench.emit(news.TextArrived("d1"))
        app.workbench.emit(news.TextArrived("d2"))  # another dialog's text is news of its own
        await pilot.pause()
        expected = [news.TextArrived("d1"), news.TextArrived("d2")]
        assert first.heard == expected and second.heard == expected
        for _ in range(3):
            app.workbench.emit(news.TextArrived("d1"))
        app.workbench.emit(news.RunEnded("d1", "finished"))  # other news is never dropped
        await pilot.pause()
        assert first.heard[2:] == second.heard[2:] == [news.TextArrived("d1"), news.RunEnded("d1", "finished")]
        first.stop_listening()
        app.workbench.emit(news.TextArrived("d1"))
        await pilot.pause()
        assert len(first.heard) == 4 and len(second.heard) == 5


async def test_a_listener_drawing_its_frames_gets_no_text_news_and_gets_it_again_once_it_stops() -> None:
    app = Host()
    async with app.run_test() as pilot:
        pane, other = app.listeners
        pane.drawing = True
        for _ in range(50):
            app.workbench.emit(news.TextArrived("d1"))
        app.workbench.emit(news.RunEnded("d1", "finished"))
        await pilot.pause()
        assert pane.heard == [news.RunEnded("d1", "finished")]
        assert other.heard == [news.TextArrived("d1"), news.RunEnded("d1", "finished")]
        pane.drawing = False  # its frames paused: nothing new had arrived
        app.workbench.emit(news.TextArrived("d1"))
        await pilot.pause()
        assert pane.heard[-1] == news.TextArrived("d1")
