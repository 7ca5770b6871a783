"""The status line: provider · model · capability marks · parameters · tokens in/out · live tokens per second.

Token figures the server did not report (llama.cpp's server sends no usage) are the client's estimate and carry
a `~` (`in ~120 out ~42`).

It follows the workbench about the shown dialog: redrawn when its run starts, reports usage or ends, when
another dialog is shown or its model changes, and once a second while it runs (the figures come from
`workbench.status`). The screen also asks for a redraw on each frame a stream draws.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget

from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import StatusInfo, Workbench
from visindigo.tui.workbench import events as news

__all__ = ["StatusInfo", "StatusLine"]


def _count(value: int) -> str:
    if value >= 100_000:
        return f"{value / 1000:.0f}k"
    if value >= 10_000:
        return f"{value / 1000:.1f}k"
    return str(value)


class StatusLine(Widget):
    """One line under the composer; `show(StatusInfo)` redraws it only when something changed.

    It renders itself instead of being a `Static`: `Static.update` asks for a new layout of the whole screen,
    and the line changes every frame while a reply streams (tokens per second), while its size never does.
    """

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
        background: $panel;
        color: $text-muted;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, workbench: Workbench, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.workbench = workbench
        self.info = StatusInfo()
        self.content = Content("")
        #: Shown first on the line for as long as the app runs, e.g. "read-only" (a served tab beside a writer).
        self.note = ""
        self._shown_note = ""
        self._ticker: Timer | None = None
        self._unsubscribe: Callable[[], None] = lambda: None

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self.refresh_now, pause=True, name="status-ticker")
        self._unsubscribe = listen(
            self, self.workbench, news.RunStarted, news.RunEnded, news.UsageChanged, news.ShownChanged,
            news.DialogChanged, news.RunNoted, news.StreamOpened,
        )  # fmt: skip

    def on_unmount(self) -> None:
        self._unsubscribe()

    def render(self) -> Content:
        return self.content

    def refresh_now(self) -> None:
        """Redraw from the workbench's figures for the shown dialog."""
        self.show(self.workbench.status())

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        event = message.event
        shown = self.workbench.shown.id
        if isinstance(event, news.RunStarted | news.RunEnded) and event.dialog_id == shown:
            running = isinstance(event, news.RunStarted)
        elif isinstance(event, news.ShownChanged) or (
            isinstance(event, news.UsageChanged | news.DialogChanged | news.RunNoted | news.StreamOpened)
            and event.dialog_id == shown
        ):
            running = self.workbench.runs.is_running(shown)
        else:
            return
        self._tick(running)
        self.refresh_now()

    def _tick(self, running: bool) -> None:
        if self._ticker is not None:
            self._ticker.resume() if running else self._ticker.pause()

    def show(self, info: StatusInfo) -> None:
        if info == self.info and self.content.plain and self._shown_note == self.note:
            return
        self.info = info
        self._shown_note = self.note
        provider = clean_line(info.provider, 40) or "no provider"
        model = clean_line(info.model, 60) or "no model"
        pieces: list[tuple[str, str] | str] = [(provider, "bold"), " · ", model]
        if self.note:
            pieces[:0] = [(self.note, "bold reverse"), " "]
        if info.marks:
            pieces += [" · ", (info.marks, "bold")]
        if info.note:
            pieces += [" · ", (clean_line(info.note, 120), "bold $text-warning")]
        if info.parameters:
            pieces += [" · ", clean_line(info.parameters, 80)]
        about = "~" if info.estimated else ""
        pieces += [f" · in {about}{_count(info.input_tokens)} out {about}{_count(info.output_tokens)}"]
        if info.tokens_per_second > 0:
            speed = f"{info.tokens_per_second:.0f} tok/s"
            pieces += [f" · last answer {speed}" if info.speed_is_final else f" · {speed}"]
        if info.state:
            pieces += ["  ", (info.state, "bold")]
        self.content = Content.assemble(*pieces)
        self.refresh()
