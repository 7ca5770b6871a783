"""The status line: provider · model · capability marks · parameters · tokens in/out · live tokens per second,
and at its right end the context meter.

Token figures the server did not report are the client's estimate and carry a `~` (`in ~120 out ~42`); while an
answer streams from a server that reports usage only at its end, "in" is the request's count (`~`) until the
real figure arrives. The dialog's totals add the tokens read from the prompt cache and the cost where it is known.

The meter (`ctx 3.1k/8k +1k`) is the next request against the model's window, from the engine's fit check, with
the room kept for the answer after the `+`; amber from 80 % of the window, red from 95 % or a request that does
not fit; `~` when the count is estimated, `?` of an "unknown" window. It is always on screen: the rest of the line
is cut with an ellipsis first.

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
from visindigo.tui.workbench.context import Meter, count_text, meter_level

__all__ = ["StatusInfo", "StatusLine"]


def _count(value: int) -> str:
    if value >= 100_000:
        return f"{value / 1000:.0f}k"
    if value >= 10_000:
        return f"{value / 1000:.1f}k"
    return str(value)


def meter_content(meter: Meter | None) -> Content:
    """The meter: used / window and the room kept for the answer, coloured by how full the window is."""
    if meter is None:
        return Content("")
    about = "~" if meter.approximate else ""
    window = count_text(meter.window) if meter.window else "unknown"
    text = f"ctx {about}{count_text(meter.used)}/{window} +{count_text(meter.room)}"
    level = meter_level(meter)
    style = {"error": "bold $text-error", "warning": "bold $text-warning"}.get(level, "")
    return Content.styled(text, style) if style else Content(text)


def cost_text(dollars: float, unknown: int) -> str:
    """The dialog's cost: known dollars, and how many answers' price is unknown ("" when all were free)."""
    if dollars > 0:
        shown = f"${dollars:.4f}" if dollars < 1 else f"${dollars:.2f}"
        return shown + (f" +{unknown} unknown" if unknown else "")
    return "cost unknown" if unknown else ""


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
        #: The meter, drawn at the line's right end (`meter_content`).
        self.meter = Content("")
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
        if not self.meter.plain:
            return self.content
        width = self.content_region.width or self.size.width
        room = width - self.meter.cell_length - 1
        if room < 8:  # too narrow for both: the meter alone
            return self.meter
        left = self.content.truncate(room, ellipsis=True) if self.content.cell_length > room else self.content
        return Content.assemble(left.pad_right(room - left.cell_length), " ", self.meter)

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
        if info.cached_tokens:
            pieces += [f" · cache {_count(info.cached_tokens)}"]
        if cost := cost_text(info.cost, info.cost_unknown):
            pieces += [f" · {cost}"]
        if info.tokens_per_second > 0:
            speed = f"{info.tokens_per_second:.0f} tok/s"
            pieces += [f" · last answer {speed}" if info.speed_is_final else f" · {speed}"]
        if info.state:
            pieces += ["  ", (info.state, "bold")]
        self.content = Content.assemble(*pieces)
        self.meter = meter_content(info.meter)
        self.refresh()
