"""The status line: provider · model · capability marks · parameters · tokens in/out · live tokens per second,
and at its right end the context meter.

Token figures the server did not report are the client's estimate and carry a `~` (`in ~120 out ~42`); while an
answer streams from a server that reports usage only at its end, "in" is the request's count (`~`) until the
real figure arrives. The dialog's totals add the tokens read from the prompt cache and the cost where it is known.

The meter (`ctx 3.1k/8k +1k`) is the next request against the model's window, from the engine's fit check, with
the room kept for the answer after the `+`; amber from 80 % of the window, red and marked `!` from 95 % or a
request that does not fit (so the mark, not the colour, tells the two apart); `~` when the count is estimated,
`?` of an "unknown" window. It is always on screen: the rest of the line is cut with an ellipsis first.

It follows the workbench about the shown dialog: redrawn when its run starts, reports usage or ends, when
another dialog is shown or its model changes, and once a second while it runs (the figures come from
`workbench.status`). The screen also asks for a redraw on each frame a stream draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget

from visindigo.tui.common.messages import WorkbenchNews, listen
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import StatusInfo, Workbench
from visindigo.tui.workbench import events as news
from visindigo.tui.workbench.context import Meter, count_text, meter_level
from visindigo.tui.workbench.status import changes_the_figures

__all__ = ["StatusInfo", "StatusLine"]

#: Cells the figures keep (the provider's name, at least its start) before the run's state is cut.
FIGURES_AT_LEAST = 6


#: While a reply streams, the line's figures (tokens, tok/s) are redrawn with at most one pane frame in this
#: many seconds: redrawn in every frame, the line widened each frame's screen update to every row between the
#: reply and the line; redrawn on a timer of its own, it cost a terminal write of its own.
FIGURES_EVERY = 0.5


def _count(value: int) -> str:
    if value >= 100_000:
        return f"{value / 1000:.0f}k"
    if value >= 10_000:
        return f"{value / 1000:.1f}k"
    return str(value)


def meter_content(meter: Meter | None, *, hint: bool = True) -> Content:
    """The meter: used / window and the room kept for the answer, coloured by how full the window is; as the
    window fills, with the key that compacts (`hint`)."""
    if meter is None:
        return Content("")
    about = "~" if meter.approximate else ""
    window = count_text(meter.window) if meter.window else "unknown"
    text = f"ctx {about}{count_text(meter.used)}/{window} +{count_text(meter.room)}"
    level = meter_level(meter)
    if not level:
        return Content(text)
    if level == "error":  # red and amber can look alike (and are one under NO_COLOR): the full window is marked
        text = "! " + text
    style = "bold $text-error" if level == "error" else "bold $text-warning"
    if not hint:
        return Content.styled(text, style)
    return Content.assemble((text, style), (" alt+z compacts", "$text-muted"))  # offered as the window fills


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

    def __init__(self, workbench: Workbench, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.workbench = workbench
        self.info = StatusInfo()
        self.content = Content("")
        #: The meter, drawn at the line's right end (`meter_content`).
        self.meter = Content("")
        #: The meter without its "alt+z compacts": what the line keeps when a run's state needs the room.
        self._bare_meter = Content("")
        #: `content` without what the run is doing, and that: when the line is too long the figures give way,
        #: so "esc cancels" stays on screen beside the meter.
        self._figures = Content("")
        self._state = Content("")
        #: Shown first on the line for as long as the app runs, e.g. "read-only" (a served tab beside a writer).
        self.note = ""
        self._shown_note = ""
        self._ticker: Timer | None = None
        self._figures_at = 0.0
        self._unsubscribe: Callable[[], None] = lambda: None

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self.refresh_now, pause=True, name="status-ticker")
        self._unsubscribe = listen(
            self, self.workbench, news.RunStarted, news.RunEnded, news.EngineEvent, news.ShownChanged
        )

    def on_unmount(self) -> None:
        self._unsubscribe()

    def render(self) -> Content:
        """What gives way when the line is too long (80 columns with a run going): first the figures (provider,
        model, tokens), then the meter's "alt+z compacts", then the end of what the run is doing ("working…" is
        cut from its end, so its first word stays); the meter's own figures never do."""
        if not self.meter.plain:
            return self.content
        width = self.content_region.width or self.size.width
        meter = self.meter
        state = self._state.cell_length + 2 if self._state.plain else 0
        if state and width - meter.cell_length - 1 - state < FIGURES_AT_LEAST and self._bare_meter.plain:
            meter = self._bare_meter  # the word the run is doing matters more than the key's reminder
        room = width - meter.cell_length - 1
        if room < 8:  # too narrow for both: the meter alone
            return meter
        left = self.content
        if left.cell_length > room and self._state.plain:
            keep = max(room - state, min(FIGURES_AT_LEAST, room // 3))  # the state whole, else cut from its end
            shown_state = self._state.truncate(room - keep - 2, ellipsis=True)
            left = Content.assemble(self._figures.truncate(keep, ellipsis=True), "  ", shown_state)
        if left.cell_length > room:
            left = left.truncate(room, ellipsis=True)
        return Content.assemble(left.pad_right(room - left.cell_length), " ", meter)

    def refresh_now(self) -> None:
        """Redraw from the workbench's figures for the shown dialog."""
        self._figures_at = time.monotonic()
        self.show(self.workbench.status())

    def refresh_with_frame(self) -> None:
        """A pane drew a frame of the shown dialog's reply: the figures go with it when they are due."""
        if time.monotonic() - self._figures_at >= FIGURES_EVERY:
            self.refresh_now()

    def on_workbench_news(self, message: WorkbenchNews) -> None:
        event = message.event
        shown = self.workbench.shown.id
        if isinstance(event, news.RunStarted | news.RunEnded) and event.dialog_id == shown:
            running = isinstance(event, news.RunStarted)
        elif isinstance(event, news.ShownChanged) or (
            isinstance(event, news.EngineEvent) and event.dialog_id == shown and changes_the_figures(event)
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
        self._figures = Content.assemble(*pieces)
        self._state = Content.styled(info.state, "bold") if info.state else Content("")
        self.content = Content.assemble(self._figures, "  ", self._state) if info.state else self._figures
        self.meter = meter_content(info.meter)
        self._bare_meter = meter_content(info.meter, hint=False)
        self.refresh()
