"""The output stage: the terminal is sent only the cells that changed since the last frame (issue 14 §2).

Textual writes every region its compositor marks dirty, whole, with each segment's full colour codes and a
reset after it. While a reply streams the anchored pane shifts every line and the scrollbar thumb moves, so
nearly every row is marked dirty each frame although most of its cells are what the terminal already shows.

This stage sits below the widget layer, between the compositor's updates and the driver: it keeps a cell grid
of the intended screen (what Textual's own output would leave on the terminal) and another of what was sent,
and writes only the runs of cells that differ — a cursor move, then the run's text with a colour code only
where the colour changes. A frame with nothing changed writes nothing at all. Anything that may have
disturbed the terminal — a new size, a suspend and resume, another screen shown (a modal opening or closing)
— forgets what was sent, so the next frame repaints every cell.

The stage reads Textual's `LayoutUpdate` and `ChopsUpdate` objects (the renderables `App._display` gets);
it applies them to its grid exactly as their own `render_segments` writes them, so the two outputs leave the
same screen (tests/tui/platform/test_output_stage.py replays recorded frames of the real app into a terminal
emulator and compares them after every frame).

Upstream report: docs/upstream/output-stage.md
"""

from __future__ import annotations

import functools
import os
import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from rich.cells import get_character_cell_size
from rich.color import ColorSystem
from rich.style import Style
from textual.app import App
from textual.strip import Strip

from visindigo.tui.platform import compat

if TYPE_CHECKING:
    from textual._compositor import ChopsUpdate, LayoutUpdate
    from textual.geometry import Offset
    from textual.screen import Screen

UPSTREAM = "docs/upstream/output-stage.md"

#: Called after a frame with the stage (its `written` runs, its size); returns bytes to write after the frame.
FrameListener: TypeAlias = Callable[["OutputStage"], str]

#: The style key of a blank cell: no colour codes (the terminal's default).
PLAIN = ""
#: A cell covered by the right half of the wide character to its left; nothing is written for it.
CONTINUATION = ""
#: Unchanged cells between two changed runs of a row that are re-sent rather than jumped over with a cursor
#: move (a move costs 6–8 bytes; a plain cell one).
BRIDGE = 6
RESET = "\x1b[0m"
LINK_END = "\x1b]8;;\x1b\\"


class OutputStage:
    """The intended screen and what the terminal was sent, as cells; `frame()` is the difference."""

    def __init__(self, width: int = 0, height: int = 0, color_system: ColorSystem = ColorSystem.TRUECOLOR) -> None:
        self.color_system = color_system
        self.width, self.height = 0, 0
        self._chars: list[list[str]] = []
        self._styles: list[list[str]] = []
        #: What the terminal holds, row by row; None: unknown (the next frame repaints everything).
        self._sent: list[tuple[list[str], list[str]]] | None = None
        self._dirty: set[int] = set()
        #: style key → (SGR sequence, link target or "")
        self._codes: dict[str, tuple[str, str]] = {PLAIN: (RESET, "")}
        self._cursor: tuple[int, int] | None = None
        #: Clear the screen (ED 2) before the next full repaint: pixels (`graphics.PixelImages`) left on cells.
        self._erase = False
        #: The runs of cells the last frame wrote: (row, first column, end column).
        self.written: list[tuple[int, int, int]] = []
        self.screen: Screen[Any] | None = None
        self.resize(width, height)

    # --- what may have disturbed the terminal -------------------------------------------------------------------

    def invalidate(self, erase: bool = False) -> None:
        """Forget what the terminal shows: the next frame writes every cell (clearing the screen first: `erase`)."""
        self._sent = None
        self._cursor = None
        self._erase = self._erase or erase

    def resize(self, width: int, height: int) -> None:
        """A new terminal size: the grid keeps what still fits and the next frame is a full repaint."""
        if (width, height) == (self.width, self.height):
            return
        chars = [row[:width] + [" "] * (width - len(row)) for row in self._chars[:height]]
        styles = [row[:width] + [PLAIN] * (width - len(row)) for row in self._styles[:height]]
        for _ in range(height - len(chars)):
            chars.append([" "] * width)
            styles.append([PLAIN] * width)
        for row_chars, row_styles in zip(chars, styles, strict=True):
            if width and row_chars[-1] != CONTINUATION and _is_wide(row_chars[-1]):
                row_chars[-1], row_styles[-1] = " ", PLAIN  # a wide character cut in half by the new edge
        self._chars, self._styles = chars, styles
        self.width, self.height = width, height
        self.invalidate()

    def show(self, screen: Screen[Any]) -> None:
        """The frame comes from `screen`: another screen than the last one (a modal opened or closed) repaints."""
        if screen is not self.screen:
            self.screen = screen
            self.invalidate()

    # --- the intended screen -------------------------------------------------------------------------------------

    def apply(self, update: LayoutUpdate | ChopsUpdate) -> None:
        """Put the cells `update` writes into the intended screen, as its own `render_segments` would."""
        layout_update, chops_update = compositor_updates()
        if isinstance(update, layout_update):
            x = update.region.x
            for y, line in enumerate(update.strips, update.region.y):
                column = x
                for strip in line:
                    column = self._put(y, column, strip)
            return
        if not isinstance(update, chops_update):
            return
        chops, ends_by_line = update.chops, update.chop_ends
        for y, x1, x2 in update.spans:
            for end, (x, chop) in zip(ends_by_line[y], chops[y].items(), strict=False):
                if chop is None or x > x2 or end <= x1:
                    continue
                if not (x2 > x >= x1 and end <= x2):
                    chop = chop.crop(0, min(end, x2) - x)
                self._put(y, x, chop)

    def _put(self, y: int, x: int, strip: Strip) -> int:
        """Write `strip`'s cells from column `x` of row `y`; the column after them."""
        if not 0 <= y < self.height:
            return x + strip.cell_length
        chars, styles, width = self._chars[y], self._styles[y], self.width
        start = x
        for text, style, control in strip:
            if control or not text:
                continue
            key = self._key(style)
            if text.isascii():
                stop = min(x + len(text), width)
                if x < stop:
                    if x >= 0:
                        chars[x:stop] = text[: stop - x]
                        styles[x:stop] = [key] * (stop - x)
                    else:
                        for column, char in enumerate(text[: stop - x], x):
                            if column >= 0:
                                chars[column], styles[column] = char, key
                x += len(text)
                continue
            for char in text:
                size = get_character_cell_size(char)
                if size == 0:
                    if 0 < x <= width and chars[x - 1] != CONTINUATION:
                        chars[x - 1] += char  # a combining mark joins the character before it
                    continue
                if 0 <= x < width:
                    if size == 2 and x + 1 >= width:
                        chars[x], styles[x] = " ", key  # no room for the wide character's right half
                    else:
                        chars[x], styles[x] = char, key
                        if size == 2:
                            chars[x + 1], styles[x + 1] = CONTINUATION, key
                x += size
        self._repair_edges(chars, styles, start, x)
        self._dirty.add(y)
        return x

    def _repair_edges(self, chars: list[str], styles: list[str], start: int, stop: int) -> None:
        """A wide character half overwritten at either end of a write is gone: its other half becomes a blank."""
        if 0 < start < self.width and chars[start] != CONTINUATION and _is_wide(chars[start - 1]):
            chars[start - 1] = " "
        if 0 <= stop < self.width and chars[stop] == CONTINUATION:
            chars[stop] = " "
        if 0 <= start < self.width and chars[start] == CONTINUATION:
            chars[start] = " "

    def _key(self, style: Style | None) -> str:
        """One string per distinct output, so that comparing two cells is comparing two strings.

        The key is made from the codes Textual itself would write for `style` (`Strip.render_style`): the codes
        Rich keeps on the style once made, else those for this stage's colour system. Two equal styles can keep
        different codes — Rich makes them for the colour system of whichever console renders a style first, and
        styles are shared through Rich's caches, so a screenshot (a truecolor console) leaves truecolor codes on
        the styles it drew while the app makes 256-colour ones for equal styles made later — so the key is never
        looked up by the style (that would write one style's codes for the other).
        """
        if style is None:
            return PLAIN
        ansi = style._ansi
        if ansi is None:
            ansi = Strip.render_ansi(style, self.color_system)
        link = style.link
        key = ansi if not link else f"{ansi}\x00{style.link_id}\x00{link}"
        if key not in self._codes:
            opening = f"\x1b]8;id={style.link_id};{link}\x1b\\" if link else ""
            self._codes[key] = (f"\x1b[0;{ansi}m" if ansi else RESET, opening)
        return key

    def lines(self) -> list[str]:
        """The intended screen's characters, one string per row (for tests and failure messages)."""
        return ["".join(row) for row in self._chars]

    # --- what the terminal is sent -------------------------------------------------------------------------------

    def frame(self, cursor: Offset | None = None) -> str:
        """The bytes that bring the terminal from what it was sent to the intended screen ("" if nothing)."""
        sent = self._sent
        rows = range(self.height) if sent is None else sorted(self._dirty)
        self._dirty = set()
        out: list[str] = []
        state = [PLAIN, ""]  # the SGR key and the link in force on the terminal while this frame is written
        self.written = []
        if sent is None and self._erase:
            out.append(RESET + "\x1b[2J")
            self._erase = False
        for y in rows:
            if y >= self.height:
                continue
            chars, styles = self._chars[y], self._styles[y]
            if sent is not None:
                old_chars, old_styles = sent[y]
                if old_chars == chars and old_styles == styles:
                    continue
                runs = _changed_runs(chars, styles, old_chars, old_styles)
            else:
                runs = [(0, self.width)] if self.width else []
            for start, stop in runs:
                self._write_run(out, state, y, start, stop)
                self.written.append((y, start, stop))
            if sent is not None:
                sent[y] = (chars[:], styles[:])
        if sent is None:
            self._sent = [(row[:], styles[:]) for row, styles in zip(self._chars, self._styles, strict=True)]
        if state[1]:
            out.append(LINK_END)
        if state[0] != PLAIN:
            out.append(RESET)
        where = None if cursor is None else (cursor.x, cursor.y)
        if where is not None and (out or where != self._cursor):
            out.append(f"\x1b[{where[1] + 1};{where[0] + 1}H")
            self._cursor = where
        return "".join(out)

    def _write_run(self, out: list[str], state: list[str], y: int, start: int, stop: int) -> None:
        chars, styles = self._chars[y], self._styles[y]
        if chars[start] == CONTINUATION and start > 0:
            start -= 1  # begin at the wide character whose right half changed
        out.append(f"\x1b[{y + 1};{start + 1}H")
        codes = self._codes
        piece: list[str] = []
        for x in range(start, stop):
            char = chars[x]
            if char == CONTINUATION:
                continue
            key = styles[x]
            if key != state[0]:
                if piece:
                    out.append("".join(piece))
                    piece = []
                sgr, link = codes[key]
                if link != state[1]:
                    out.append(LINK_END if state[1] else "")
                    out.append(link)
                    state[1] = link
                out.append(sgr)
                state[0] = key
            piece.append(char)
        if piece:
            out.append("".join(piece))


def _changed_runs(
    chars: list[str], styles: list[str], old_chars: list[str], old_styles: list[str]
) -> list[tuple[int, int]]:
    """[start, stop) of the cells that differ, with short unchanged gaps bridged and wide characters whole."""
    runs: list[tuple[int, int]] = []
    width = len(chars)
    x = 0
    while x < width:
        if chars[x] == old_chars[x] and styles[x] == old_styles[x]:
            x += 1
            continue
        start = x
        while x < width and (chars[x] != old_chars[x] or styles[x] != old_styles[x]):
            x += 1
        if x < width and chars[x] == CONTINUATION:
            x += 1  # end after the right half of a wide character that changed
        if runs and start - runs[-1][1] <= BRIDGE:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((start, x))
    return runs


def _is_wide(char: str) -> bool:
    return bool(char) and get_character_cell_size(char[0]) == 2


def install(app: App[Any]) -> None:
    """The app's frames go through an `OutputStage` instead of straight out (nothing on a Textual the stage was
    not checked on, or with VISINDIGO_OUTPUT_STAGE=0).

    `App._display` is where Textual turns a compositor update into bytes for the driver; the app's own
    replacement keeps everything around it (synchronized output when the terminal answered the mode-2026
    query, the flush, the post-display hook) and changes only which bytes are written. Inline mode, headless
    runs and anything that is not a compositor update take Textual's own path.
    """
    if not output_stage_enabled() or not compat.enabled("output_stage", app) or app in _stages:
        return
    updates = compositor_updates()
    shown: Any = app
    textual_display = shown._display

    def display(screen: Screen[Any], renderable: Any) -> None:
        driver = shown._driver
        if (
            not isinstance(renderable, updates)
            or driver is None
            or driver.is_inline
            or shown.is_headless
            or not shown._running
            or shown._closed
            or shown._batch_count
        ):
            textual_display(screen, renderable)
            return
        try:
            stage = stage_of(app)
            stage.resize(shown.size.width, shown.size.height)
            stage.show(screen)
            stage.apply(renderable)
            data = stage.frame(shown.screen.outer_size.clamp_offset(shown.cursor_position))
            data += "".join(listener(stage) for listener in _listeners.get(app, ()))
        except Exception as error:  # Textual's own path reports a failed render the same way
            shown._handle_exception(error)
            data = ""
        if data:
            shown._begin_update()
            # Textual's own path writes in 8 KB pieces on Windows (a console write limit); so does this one.
            step = 8192 if sys.platform == "win32" else len(data)
            for offset in range(0, len(data), step):
                driver.write(data[offset : offset + step])
            shown._end_update()
            driver.flush()
        shown.post_display_hook()

    _stages[app] = None
    shown._display = display


@functools.cache
def compositor_updates() -> tuple[type[LayoutUpdate], type[ChopsUpdate]]:
    """Textual's two kinds of compositor update (imported on first use: a Textual without them turns it off)."""
    from textual._compositor import ChopsUpdate, LayoutUpdate

    return LayoutUpdate, ChopsUpdate


def output_stage_enabled() -> bool:
    """VISINDIGO_OUTPUT_STAGE=0 sends Textual's own output (to compare, or if a terminal ever disagrees)."""
    return os.environ.get("VISINDIGO_OUTPUT_STAGE", "1").strip().lower() not in {"0", "off", "no"}


def stage_of(app: App[Any]) -> OutputStage:
    """`app`'s output stage (made on first use; a resumed app repaints every cell)."""
    stage = _stages.get(app)
    if stage is None:
        shown: Any = app
        stage = _stages[app] = OutputStage(color_system=shown.console._color_system or ColorSystem.TRUECOLOR)
        app.app_resume_signal.subscribe(app, lambda _app: repaint_terminal(app))
    return stage


def repaint_terminal(app: App[Any], erase: bool = False) -> None:
    """The terminal may not show what was sent (back from a SIGTSTP, where Textual's signal path draws nothing
    on the emptied alternate screen; a frame cut short by a full terminal; pixels drawn over cells, which go
    only where a cell is written: `erase` clears the screen first): a frame of every cell is asked for now."""
    stage = _stages.get(app)
    if stage is not None:
        stage.invalidate(erase)
    app.refresh()


def add_frame_listener(app: App[Any], listener: FrameListener) -> bool:
    """After each of `app`'s frames, `listener(stage)` returns bytes written in the same synchronized update,
    after the frame's cells (pixels over cells it may have written); False (not added) if the stage is off."""
    if app in _stages:
        _listeners.setdefault(app, []).append(listener)
    return app in _stages


#: Each app's stage (None until its first staged frame); an app with an entry has the stage installed.
_stages: weakref.WeakKeyDictionary[App[Any], OutputStage | None] = weakref.WeakKeyDictionary()
_listeners: weakref.WeakKeyDictionary[App[Any], list[FrameListener]] = weakref.WeakKeyDictionary()
