"""Which way attached images are drawn — by the terminal (kitty's graphics protocol; sixel or iTerm2's inline
images over half blocks) or in half-block cells — and the one write that sends an image to the terminal.

The choice is made from the environment alone, never by asking the terminal: a query's answer arrives on the
app's own input, where Textual's input thread would take it for keys (and a key typed meanwhile for the
answer), and asking before the app starts would slow every start for the few dialogs with a picture. So:

- `[ui] images = "cells"`, `"kitty"`, `"sixel"` or `"iterm"` decides; `"auto"` (the default) picks kitty
  graphics only for kitty (`TERM=xterm-kitty` or `KITTY_WINDOW_ID`) and Ghostty (`TERM=xterm-ghostty` or
  `TERM_PROGRAM=ghostty`) — the two terminals known to show kitty's Unicode placeholders — with 24-bit colour
  announced (`COLORTERM`, which carries the image id); iTerm2's inline images for iTerm2 (`TERM_PROGRAM` or,
  over SSH, `LC_TERMINAL`), WezTerm and mintty; sixel for foot, mlterm, Konsole 22.04+, Windows Terminal and
  contour (xterm draws sixel only when started as a VT340, which its environment does not tell: set
  `"sixel"`); and none of them inside tmux or screen (they pass no APC to the terminal without a passthrough
  set-up, and place no pixels where the app's cells are);
- sixel and iTerm2 pictures are pixels painted at the cursor, which a write over their cells wipes and a
  scroll leaves behind: `tui/chat/attachments/painter.py` paints them only over a widget that holds still, and
  wipes them when it moves (half blocks show meanwhile);
- whatever was chosen, the app draws cells when it cannot do better: in `serve`'s browser page, headless
  (tests, snapshots), under NO_COLOR, on a colour system below truecolor, or when the shim is off.

The upload must reach the terminal in order with the frames, never inside one: Textual writes each frame
through its driver from the event loop's thread, so the upload is written the same way, between two frames.
Textual has no public way to write to the terminal (`App.copy_to_clipboard` writes its OSC 52 through the
private `App._driver`, as this does). Upstream report: docs/upstream/terminal-write.md
"""

from __future__ import annotations

import logging
import os
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from visindigo.engine.record import record

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger(__name__)

UPSTREAM = "docs/upstream/terminal-write.md"
AUTO, KITTY, SIXEL, ITERM, CELLS = "auto", "kitty", "sixel", "iterm", "cells"
SETTINGS = (AUTO, KITTY, SIXEL, ITERM, CELLS)
#: The ways that paint pixels at the cursor (over a picture's half blocks while it holds still).
PIXELS = (SIXEL, ITERM)
#: A cell's pixels when the terminal does not say (a VT340's, as xterm assumes).
DEFAULT_CELL_PIXELS = (10, 20)
_WAYS = {
    KITTY: "kitty graphics (Unicode placeholders)",
    SIXEL: "sixel over half-block cells (painted while the picture holds still)",
    ITERM: "iTerm2 inline images over half-block cells (painted while the picture holds still)",
    CELLS: "half-block cells",
}


@record(frozen=True)
class Choice:
    """How images are drawn, and why (the line `visindigo doctor` prints)."""

    path: str  # KITTY, SIXEL, ITERM or CELLS
    why: str
    #: Inside tmux with `[ui] images = "kitty"`: each upload wrapped for tmux's passthrough (tmux 3.3+ with
    #: `set -g allow-passthrough on`), the placeholder cells being ordinary text tmux redraws itself.
    tmux: bool = False

    def describe(self) -> str:
        return f"images: {_WAYS[self.path]} — {self.why}"


def choose(setting: object = AUTO, environ: Mapping[str, str] | None = None) -> Choice:
    """The way images are drawn for `[ui] images = setting` in `environ` (the process's by default)."""
    environ = os.environ if environ is None else environ
    if setting == CELLS:
        return Choice(CELLS, '[ui] images = "cells"')
    if setting == KITTY:
        inside = bool(environ.get("TMUX"))
        return Choice(KITTY, '[ui] images = "kitty"' + (" (through tmux's passthrough)" if inside else ""), inside)
    if setting in PIXELS:
        return Choice(str(setting), f'[ui] images = "{setting}"')
    term = environ.get("TERM", "")
    program = environ.get("TERM_PROGRAM", "").lower()
    if environ.get("TMUX"):
        return Choice(
            CELLS, 'inside tmux, which passes no terminal graphics on by itself ([ui] images = "kitty" forces them)'
        )
    if environ.get("STY"):
        return Choice(CELLS, "inside screen, which passes no terminal graphics on")
    if term == "xterm-kitty":
        terminal = "kitty (TERM=xterm-kitty)"
    elif environ.get("KITTY_WINDOW_ID") and program in ("", "kitty"):
        terminal = "kitty (KITTY_WINDOW_ID)"
    elif term == "xterm-ghostty" or program == "ghostty":
        terminal = "Ghostty (TERM=xterm-ghostty)" if term == "xterm-ghostty" else "Ghostty (TERM_PROGRAM)"
    else:
        pixels = _pixel_terminal(term, program, environ)
        if pixels is not None:
            return pixels
        return Choice(
            CELLS, f"TERM={term or '(not set)'} is not a terminal known to show kitty, sixel or iTerm2 pictures"
        )
    if "NO_COLOR" in environ:
        return Choice(CELLS, f"{terminal}, but NO_COLOR is set and an image's id is a colour")
    if environ.get("COLORTERM", "").lower() not in ("truecolor", "24bit"):
        return Choice(
            CELLS, f"{terminal}, but COLORTERM does not announce the 24-bit colour that carries an image's id"
        )
    return Choice(KITTY, f"{terminal} with 24-bit colour; `serve` and headless runs still draw cells")


def _pixel_terminal(term: str, program: str, environ: Mapping[str, str]) -> Choice | None:
    """The terminals known (by their environment) to draw iTerm2's inline images or sixel, else None."""
    konsole = environ.get("KONSOLE_VERSION", "")
    if program == "iterm.app" or environ.get("LC_TERMINAL") == "iTerm2":
        found = ITERM, "iTerm2"
    elif program in ("wezterm", "mintty"):
        found = ITERM, "WezTerm" if program == "wezterm" else "mintty"
    elif term.startswith("foot"):
        found = SIXEL, "foot"
    elif term == "mlterm" or "MLTERM" in environ:
        found = SIXEL, "mlterm"
    elif konsole.isdigit() and int(konsole) >= 220400:
        found = SIXEL, "Konsole 22.04+"
    elif environ.get("WT_SESSION"):
        found = SIXEL, "Windows Terminal"
    elif environ.get("TERMINAL_NAME") == "contour":
        found = SIXEL, "contour"
    else:
        return None
    return Choice(found[0], f"{found[1]} draws {'sixel' if found[0] == SIXEL else 'iTerm2 images'}")


class TerminalImages:
    """Images sent to one app's terminal: ids, uploads and deletes, each written in order with the frames."""

    def __init__(self, app: App[Any], tmux: bool = False) -> None:
        self._app = weakref.ref(app)
        self.tmux = tmux
        #: id → the commands that sent it: sent again when the terminal may have lost them (see `resend`).
        self.shown: dict[int, str] = {}

    def new_id(self) -> int:
        """A random id, not one this app shows. Random, not counted up: ids are global to the terminal (another
        program may have sent some), and the part of a screen seen through a modal's translucent background is
        drawn with its colours blended towards the modal's: a placeholder's id shifted a little must not be
        the id of another image on show."""
        import secrets  # (with hmac and hashlib: not on the way to the first frame, which shows no image)

        while True:
            image_id = secrets.randbelow(0xFFFFFF) + 1
            if image_id not in self.shown:
                return image_id

    def show(self, image_id: int, upload: str) -> bool:
        """Send an image (`upload`: its transmission and placement); False when there is no terminal."""
        if not self.write(upload):
            return False
        self.shown[image_id] = upload
        return True

    def hide(self, image_id: int, deletion: str) -> None:
        """Delete an image from the terminal (`deletion`: the command that does)."""
        if self.shown.pop(image_id, None) is not None:
            self.write(deletion)

    def resend(self) -> None:
        """Send every image on show again: after a suspend the terminal may have cleared them with the alternate
        screen, and a full terminal may have dropped part of an upload (the driver then repaints every cell)."""
        for upload in self.shown.values():
            self.write(upload)

    def write(self, data: str) -> bool:
        """Send `data` to the terminal between two frames; False when there is no terminal to send it to."""
        app = self._app()
        return app is not None and write(app, tmux_passthrough(data) if self.tmux else data, flush=False)


def tmux_passthrough(data: str) -> str:
    """`data` wrapped so that tmux hands it to the terminal outside: each escape sequence in a DCS `tmux;` with
    its ESC bytes doubled (one sequence per wrapper, as tmux wants)."""
    pieces = [piece for piece in data.split("\x1b\\") if piece]
    return "".join("\x1bPtmux;" + (piece + "\x1b\\").replace("\x1b", "\x1b\x1b") + "\x1b\\" for piece in pieces)


def cell_pixels() -> tuple[int, int]:
    """A cell's width and height in pixels, as the terminal reports its window (TIOCGWINSZ; xterm, foot,
    WezTerm, iTerm2 and OpenSSH's forwarding fill it), else a VT340's. Not asked with an escape sequence: the
    answer would arrive among the keys the app reads."""
    import sys

    try:
        import fcntl
        import struct
        import termios
    except ImportError:  # Windows
        return DEFAULT_CELL_PIXELS
    for stream in (sys.__stdout__, sys.__stdin__):
        try:
            if stream is None:
                continue
            packed = fcntl.ioctl(stream.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
        except (OSError, ValueError):
            continue
        rows, columns, width, height = struct.unpack("HHHH", packed)
        if rows and columns and width >= columns and height >= rows:
            return width // columns, height // rows
    return DEFAULT_CELL_PIXELS


def pixel_path(app: App[Any]) -> str | None:
    """`SIXEL` or `ITERM` when `app`'s terminal takes those pictures and they can be painted now (a real
    terminal, the shim on), else None (draw cells). `tui/chat/attachments/painter.py` paints them."""
    choice = _choices.get(app)
    if choice is None or choice.path not in PIXELS or app.is_web or app.is_headless or not _shim_enabled(app):
        return None
    return choice.path


def write(app: App[Any], data: str, flush: bool = True) -> bool:
    """Send `data` to `app`'s terminal now, between two frames; False when there is no terminal."""
    shown: Any = app
    driver = shown._driver
    if driver is None:
        return False
    driver.write(data)
    if flush:
        driver.flush()
    return True


def install(app: App[Any], setting: object = AUTO) -> None:
    """Decide for `app` (at start: the environment does not change while it runs)."""
    choice = choose(setting)
    _choices[app] = choice
    if choice.path != CELLS:
        log.info("%s", choice.describe())


def images_for(app: App[Any]) -> TerminalImages | None:
    """`app`'s terminal images when they can be shown now, else None (draw cells)."""
    choice = _choices.get(app)
    if choice is None or choice.path != KITTY:
        return None
    shown: Any = app
    if app.is_web or app.is_headless or app.no_color or shown.console.color_system != "truecolor":
        return None
    if not _shim_enabled(app):
        return None
    found = _images.get(app)
    if found is None:
        found = _images[app] = TerminalImages(app, choice.tmux)
        app.app_resume_signal.subscribe(app, lambda _app: resend(_app))
    return found


def resend(app: App[Any]) -> None:
    """The terminal may have lost `app`'s images (a resume, dropped output): send them again, before the frame
    that repaints their placeholders."""
    found = _images.get(app)
    if found is not None:
        found.resend()


def _shim_enabled(app: App[Any]) -> bool:
    from visindigo.tui.platform import compat

    return compat.enabled("graphics", app)


_choices: weakref.WeakKeyDictionary[App[Any], Choice] = weakref.WeakKeyDictionary()
_images: weakref.WeakKeyDictionary[App[Any], TerminalImages] = weakref.WeakKeyDictionary()
