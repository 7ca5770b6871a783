"""What the command line and the config choose for a run of the app: demo or not, the first model, the frame rate
while a reply streams, and whether text fields blink."""

from __future__ import annotations

import os

from visindigo.engine import Center
from visindigo.engine.record import record

#: Frames per second while a reply streams. Each redraw of a scrolling pane is what an SSH link must carry, so
#: this sets the bandwidth a run needs; `--fps` (or `[ui] stream_fps`) lowers it for slow links.
DEFAULT_STREAM_FPS = 4.0
FPS_ENV = "VISINDIGO_STREAM_FPS"


@record
class AppOptions:
    """What the command line chose for this run."""

    demo: bool = False
    provider: str = ""
    model: str = ""
    stream_fps: float | None = None
    #: Seconds between the demo model's streamed pieces (0: instant, for tests and snapshots).
    demo_delay: float = 0.02
    #: In demo mode, ask one question live after seeding, so the first thing seen is a streaming reply.
    demo_live_question: bool = True


def _ui_settings(center: Center) -> dict[str, object]:
    if center.config is None:
        return {}
    ui = center.config.data.get("ui")
    return ui if isinstance(ui, dict) else {}


def configured_fps(center: Center, options: AppOptions) -> float:
    """--fps, else $VISINDIGO_STREAM_FPS, else `[ui] stream_fps` in the config, else the default."""
    candidates: list[object] = [options.stream_fps, os.environ.get(FPS_ENV), _ui_settings(center).get("stream_fps")]
    for value in candidates:
        if value is None or value == "" or not isinstance(value, int | float | str):
            continue
        try:
            fps = float(value)
        except ValueError:
            continue
        if 0.5 <= fps <= 60:
            return fps
    return DEFAULT_STREAM_FPS


def configured_cursor_blink(center: Center) -> bool:
    """`[ui] cursor_blink`, off unless chosen: a blinking cursor redraws its cell twice a second for as long as
    the app runs, which an SSH link carries while nothing else happens."""
    return _ui_settings(center).get("cursor_blink") is True


def configured_images(center: Center) -> str:
    """`[ui] images`: "auto" (the default, and what any other value means), "kitty", "sixel", "iterm" or
    "cells"."""
    value = _ui_settings(center).get("images")
    return value if value in ("kitty", "sixel", "iterm", "cells") else "auto"
