"""The status line: provider · model · capability marks · tokens in/out · live tokens per second."""

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
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info = StatusInfo()
        self.content = Content("")

    def render(self) -> Content:
        return self.content

    def show(self, info: StatusInfo) -> None:
        if info == self.info and self.content.plain:
            return
        self.info = info
        provider = clean_line(info.provider, 40) or "no provider"
        model = clean_line(info.model, 60) or "no model"
        pieces: list[tuple[str, str] | str] = [(provider, "bold"), " · ", model]
        if info.marks:
            pieces += [" · ", (info.marks, "bold")]
        pieces += [f" · in {_count(info.input_tokens)} out {_count(info.output_tokens)}"]
        if info.tokens_per_second > 0:
            pieces += [f" · {info.tokens_per_second:.0f} tok/s"]
        if info.state:
            pieces += ["  ", (info.state, "bold")]
        self.content = Content.assemble(*pieces)
        self.refresh()
