"""The header over one column of a comparison: who answers, how fast, how much, and how it ended.

The figures are computed here from the run's plain state (`column_figures`), and drawn by `CompareHeader`,
which renders itself: the line changes every frame while the column streams (tok/s, tokens out), and
`Static.update` would ask for a new layout of the whole screen each time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual.content import Content
from textual.widget import Widget

from visindigo.engine import ModelInfo
from visindigo.tui.chat.status_line import _count
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import RunState

#: Shown instead of the model while the comparison is blind.
HIDDEN = "model hidden until you pick"

#: What a column is doing, as its header says it (the mark and the words).
STATES = {
    "ready": ("·", "ready"),
    "waiting": ("…", "waits its turn"),
    "starting": ("…", "asking"),
    "streaming": ("●", "streaming"),
    "working": ("●", "running a tool"),
    "approval": ("?", "asks to run a tool"),
    "finished": ("✓", "done"),
    "failed": ("✗", "failed"),
    "cancelled": ("■", "cancelled"),
}


def price_of(model: ModelInfo | None) -> tuple[float, float] | None:
    """Dollars per million tokens (input, output) from the model's `price` in the config, when it has one."""
    price = model.extra.get("price") if model is not None else None
    if not isinstance(price, dict):
        return None
    try:
        prices = float(price.get("input", 0) or 0), float(price.get("output", 0) or 0)
    except (TypeError, ValueError):
        return None
    return prices if any(prices) and min(prices) >= 0 else None


@dataclass(frozen=True, slots=True)
class ColumnFigures:
    """What a column's header shows; equal figures mean nothing to redraw."""

    label: str
    model: str
    state: str = "ready"
    first_token: float = 0.0
    tokens_per_second: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    waiting_for: str = ""
    picked: bool = False
    active: bool = False


def run_state_name(run: RunState | None, *, asking: bool = False, waiting: bool = False) -> str:
    """The header's state for a run: see `STATES`."""
    if run is None:
        return "ready"
    if asking:
        return "approval"
    if run.running:
        if waiting:
            return "waiting"
        if run.streaming:  # asking until words arrive: a stream retried after a 500 is not yet streaming
            return "streaming" if run.first_token_at else "starting"
        return "working" if run.round else "starting"
    return run.outcome if run.outcome in STATES else "ready"


def column_figures(
    label: str,
    model: str,
    run: RunState | None,
    *,
    first_token: float = 0.0,
    usage: tuple[int, int] = (0, 0),
    price: tuple[float, float] | None = None,
    asking: bool = False,
    waiting_for: str = "",
    picked: bool = False,
    active: bool = False,
    now: float | None = None,
) -> ColumnFigures:
    """The figures of one column. `usage` is what the branch's answers reported (tokens in, out) once the run is
    over; while it runs, the run's own counts (and the live estimate of the round) are used. `waiting_for`
    names the provider the run waits for (it serves as many runs as it allows)."""
    input_tokens, output_tokens = usage
    speed = 0.0
    if run is not None:
        if run.running or not any(usage):
            input_tokens = max(input_tokens, run.input_tokens)
            output_tokens = max(output_tokens, run.live_output_tokens)
        speed = run.tokens_per_second(time.monotonic() if now is None else now)
    cost = None
    if price is not None:
        cost = (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000
    return ColumnFigures(
        label=label,
        model=model,
        state=run_state_name(run, asking=asking, waiting=bool(waiting_for)),
        first_token=first_token,
        tokens_per_second=speed,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost=cost,
        waiting_for=clean_line(waiting_for, 40),
        picked=picked,
        active=active,
    )


def header_content(figures: ColumnFigures) -> Content:
    """Three lines: label and state; the model; time to first token, speed, tokens in/out and cost."""
    mark, words = STATES.get(figures.state, ("·", figures.state))
    if figures.state == "waiting" and figures.waiting_for:
        words = f"waits its turn at {figures.waiting_for}"
    label_style = "bold reverse" if figures.active else "bold"
    state_style = "bold $text-error" if figures.state == "failed" else "bold" if figures.state == "approval" else ""
    first: list[tuple[str, str] | str] = [(f" {figures.label} ", label_style), "  ", (f"{mark} {words}", state_style)]
    if figures.picked:
        first += ["  ", ("★ picked", "bold $text-success")]
    model = (clean_line(figures.model, 80), "dim italic" if figures.model == HIDDEN else "bold")
    numbers: list[str] = []
    if figures.first_token:
        numbers.append(f"first token {figures.first_token:.2f} s")
    if figures.tokens_per_second > 0:
        numbers.append(f"{figures.tokens_per_second:.0f} tok/s")
    numbers.append(f"in {_count(figures.input_tokens)} out {_count(figures.output_tokens)}")
    if figures.cost is not None:
        numbers.append(f"${figures.cost:.4f}")
    return Content.assemble(*first, "\n", model, "\n", (" · ".join(numbers), "dim"))


class CompareHeader(Widget):
    """Three lines over a column; `show(figures)` redraws only when they changed."""

    DEFAULT_CSS = """
    CompareHeader {
        height: 3;
        width: 1fr;
        background: $panel;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, figures: ColumnFigures, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.figures = figures
        self.content = header_content(figures)

    def render(self) -> Content:
        return self.content

    def show(self, figures: ColumnFigures) -> None:
        if figures == self.figures:
            return
        self.figures = figures
        self.content = header_content(figures)
        self.refresh()


class CompareTabs(Widget):
    """The tab strip of a narrow comparison (one column shown at a time): every column's label and state."""

    DEFAULT_CSS = """
    CompareTabs {
        height: 1;
        width: 1fr;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.content = Content("")
        self._tabs: tuple[ColumnFigures, ...] = ()

    def render(self) -> Content:
        return self.content

    def show(self, tabs: list[ColumnFigures]) -> None:
        if tuple(tabs) == self._tabs:
            return
        self._tabs = tuple(tabs)
        pieces: list[tuple[str, str] | str] = []
        for figures in tabs:
            mark = STATES.get(figures.state, ("·", ""))[0]
            style = "bold reverse" if figures.active else ""
            name = "" if figures.model == HIDDEN else f" {clean_line(figures.model, 16)}"
            pieces += [(f" {figures.label}{name} {mark} ", style), " "]
        pieces.append(("tab: next column", "dim"))
        self.content = Content.assemble(*pieces)
        self.refresh()
