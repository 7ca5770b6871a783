"""The status line: provider · model · capability marks · parameters · tokens in/out · live tokens per second.

Token figures the server did not report (llama.cpp's server sends no usage) are the client's estimate and carry
a `~` (`in ~120 out ~42`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widget import Widget

from ..sanitize import clean_line


@dataclass(frozen=True, slots=True)
class StatusInfo:
    provider: str = ""
    model: str = ""
    marks: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    tokens_per_second: float = 0.0
    state: str = ""
    #: The speed is the last answer's final figure (no answer is streaming now).
    speed_is_final: bool = False
    #: Why a capability mark the dialog needs is missing ("" when none is).
    note: str = ""
    #: Some token figure is the client's estimate (the server reported none): shown with a `~`.
    estimated: bool = False
    #: The dialog's generation parameters that are set, compactly (`max 256 · t 0.7`).
    parameters: str = ""


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

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = StatusInfo()
        self.content = Content("")
        #: Shown first on the line for as long as the app runs, e.g. "read-only" (a served tab beside a writer).
        self.note = ""
        self._shown_note = ""

    def render(self) -> Content:
        return self.content

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
