"""Sixel and iTerm2 pictures kept over the cells of their widgets: painted when the widget holds still, painted
again after a frame that writes over them, wiped when the widget moves or goes.

Both protocols paint pixels at the cursor rather than place text the app redraws (kitty's placeholders): a
cell written over the picture wipes that part of it (xterm keeps it until the cell is erased), and a scroll
leaves it at its old place. So a picture is painted only where its widget's content is wholly in view, on the
screen shown, with nothing drawn over it, and has not moved for `STILL_SECONDS`. Meanwhile — while a reply
streams and the dialog follows it, while the user scrolls — the widget's own cells show (its half blocks). The
moment a frame moves the widget, hides it or draws over it, the picture is dropped and the next frame clears
the screen and writes every cell, so no pixel is left behind; the picture comes back once the widget is still.
A frame that only redraws the widget's own cells (nothing moved) has it painted again in the same
synchronized update.

The painter learns what each frame wrote from the output stage (`output_stage.add_frame_listener`) and writes
between frames through `graphics.write`, both in the seam; nothing here names a Textual private.
"""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any

from textual.geometry import Region

from visindigo.engine.record import record
from visindigo.tui.platform import graphics, output_stage

if TYPE_CHECKING:
    from textual.app import App
    from textual.timer import Timer
    from textual.widget import Widget

__all__ = ["STILL_SECONDS", "PixelImages", "painter_for"]

#: How long a picture's widget must hold still before the picture is painted: a stream or a scroll moves it
#: every frame (8–30 a second), and each move costs a clear of the screen and the picture sent again.
STILL_SECONDS = 0.3


@record(frozen=True)
class Wanted:
    """A picture to keep over `owner`'s content: `data` made for `columns` × `rows` cells."""

    owner: weakref.ref[Widget]
    columns: int
    rows: int
    data: str


class PixelImages:
    """One app's sixel or iTerm2 pictures (`path`: `graphics.SIXEL` or `graphics.ITERM`)."""

    def __init__(self, app: App[Any], path: str) -> None:
        self._app = weakref.ref(app)
        self.path = path
        self._wanted: dict[int, Wanted] = {}
        #: The pictures painted now: owner's id → the region of cells painted over.
        self._shown: dict[int, Region] = {}
        #: Each picture waiting to be painted: where its widget was last seen (None: not wholly in view) and
        #: since when (a frame that moved it or wrote over its cells starts the wait again).
        self._waiting: dict[int, tuple[Region | None, float]] = {}
        self._timer: Timer | None = None

    def show(self, owner: Widget, columns: int, rows: int, data: str) -> None:
        """Keep `data` (a picture made for `columns` × `rows` cells) over `owner`'s content from now on, painted
        whenever it can be (at once, if it can now)."""
        self._wanted[id(owner)] = Wanted(weakref.ref(owner), columns, rows, data)
        self._shown.pop(id(owner), None)
        self._waiting[id(owner)] = (None, 0.0)
        self._settle(time.monotonic() + STILL_SECONDS)

    def remove(self, owner: Widget) -> None:
        """Stop keeping `owner`'s picture; if it is on the screen, the next frame wipes it."""
        self._wanted.pop(id(owner), None)
        self._waiting.pop(id(owner), None)
        if self._shown.pop(id(owner), None) is not None:
            self._erase()

    def shown(self, owner: Widget) -> Region | None:
        """The cells `owner`'s picture is painted over now (None: not painted)."""
        return self._shown.get(id(owner))

    def after_frame(self, stage: Any) -> str:
        """After each frame (`stage.written`: its runs of cells): the pictures to paint again over cells it
        redrew; the pictures whose widget it moved, hid or drew over are dropped (the screen cleared at the next
        frame) and wait to hold still."""
        if not self._wanted:
            return ""
        painted: list[str] = []
        now = time.monotonic()
        for key, wanted in list(self._wanted.items()):
            owner = wanted.owner()
            region = None if owner is None else _placed_at(owner)
            shown = self._shown.get(key)
            touched = region is not None and any(_covers(region, *run) for run in stage.written)
            if (
                owner is not None
                and shown is not None
                and shown == region
                and (not touched or _clear_over(owner, shown))
            ):
                if touched:
                    painted.append(_at(shown, wanted.data))
                continue
            if shown is not None:
                del self._shown[key]
                self._erase()
            if owner is None:
                del self._wanted[key], self._waiting[key]
            elif shown is not None or touched or self._waiting[key][0] != region:
                self._waiting[key] = (region, now)
                if region is not None and self._timer is None:
                    self._timer = owner.app.set_timer(STILL_SECONDS, self._when_still)
        return "".join(painted)

    def _when_still(self) -> None:
        """Paint what has held still long enough; look again when the next one will have."""
        self._timer = None
        due = self._settle(time.monotonic())
        app = self._app()
        if due is not None and app is not None:
            self._timer = app.set_timer(max(0.01, due - time.monotonic()), self._when_still)

    def _settle(self, now: float) -> float | None:
        """Paint each waiting picture whose widget has been where it is since `STILL_SECONDS` before `now`, and
        is wholly in view and uncovered; the time the next one waiting in view will have held still, or None."""
        app = self._app()
        if app is None:
            return None
        out: list[str] = []
        due: float | None = None
        for key, wanted in list(self._wanted.items()):
            owner = wanted.owner()
            if key in self._shown or owner is None:
                continue
            seen, since = self._waiting[key]
            region = _placed_at(owner)
            if region is None or (seen is not None and seen != region):
                continue  # out of view, or moved since the last frame looked (its next frame says so)
            if since + STILL_SECONDS > now:
                due = since + STILL_SECONDS if due is None else min(due, since + STILL_SECONDS)
                continue
            fits = (region.width, region.height) == (wanted.columns, wanted.rows)
            if fits and region.bottom < app.size.height and _clear_over(owner, region):  # (the last row scrolls)
                self._shown[key] = region
                out.append(_at(region, wanted.data))
        if out and not graphics.write(app, "".join(out)):
            self._shown.clear()
        return due

    def _erase(self) -> None:
        app = self._app()
        if app is not None:
            output_stage.repaint_terminal(app, erase=True)


def _placed_at(owner: Widget) -> Region | None:
    """`owner`'s content region when it is mounted on the screen shown and wholly inside what its containers
    show of it; else None."""
    try:
        screen = owner.screen
        if not owner.is_mounted or screen is not owner.app.screen:
            return None
        clip = screen.find_widget(owner).clip
    except Exception:  # detached, or not in the screen's map: Textual's NoScreen, NoActiveAppError, NoWidget
        return None
    region = owner.content_region
    return region if region.area and clip.contains_region(region) else None


def _clear_over(owner: Widget, region: Region) -> bool:
    """Whether every cell of `region` shows `owner` (nothing drawn over it: a notice, a menu)."""
    screen = owner.screen
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            try:
                if screen.get_widget_at(x, y)[0] is not owner:
                    return False
            except Exception:  # NoWidget
                return False
    return True


def _covers(region: Region, row: int, start: int, stop: int) -> bool:
    return region.y <= row < region.bottom and start < region.right and region.x < stop


def _at(region: Region, data: str) -> str:
    """The picture painted at the region's first cell with the cursor and its attributes saved around it."""
    return f"\x1b7\x1b[{region.y + 1};{region.x + 1}H{data}\x1b8"


def painter_for(app: App[Any]) -> PixelImages | None:
    """`app`'s painter when its terminal takes sixel or iTerm2 pictures and they can be shown now (a real
    terminal, the output stage on: it says what each frame wrote), else None (draw cells)."""
    path = graphics.pixel_path(app)
    if path is None:
        return None
    found = _painters.get(app)
    if found is None:
        found = PixelImages(app, path)
        if not output_stage.add_frame_listener(app, found.after_frame):
            return None
        _painters[app] = found
    return found


_painters: weakref.WeakKeyDictionary[App[Any], PixelImages] = weakref.WeakKeyDictionary()
