"""The frame rate a pane draws streamed text at: one timer per pane, paused while nothing arrives.

Each redraw of a scrolling pane costs tens of KB of terminal output, so the frame rate is what bounds what a
stream costs; the text that arrives between two frames is drawn together. A paused Textual interval ticks a
whole period after it is resumed (250 ms at 4 frames/s: the first reply after start-up waited that long for
its first words), so the first frame of a burst is drawn at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.timer import Timer
from textual.widget import Widget


class FrameClock:
    """Calls `draw` at `fps` frames a second on `widget` while it runs (`resume`), not at all once paused."""

    def __init__(self, widget: Widget, fps: float, draw: Callable[[], Awaitable[None]]) -> None:
        self.widget = widget
        self.fps = max(0.5, min(60.0, fps))
        self.draw = draw
        self.timer: Timer | None = None
        #: Whether frames are being drawn (the timer running).
        self.running = False

    def start(self) -> None:
        """Make the timer, paused (once the widget is mounted)."""
        self.timer = self.widget.set_interval(1 / self.fps, self.draw, pause=True, name="stream-frame")

    def resume(self) -> None:
        """Draw frames, the first one now."""
        if self.timer is None or self.running:
            return
        self.running = True
        self.timer.resume()
        self.widget.call_later(self.draw)

    def pause(self) -> None:
        self.running = False
        if self.timer is not None:
            self.timer.pause()
