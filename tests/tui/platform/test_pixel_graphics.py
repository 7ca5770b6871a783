"""Issue 26: an attached image painted by the terminal as sixel (foot, mlterm, Konsole, Windows Terminal, xterm
as a VT340) or as an iTerm2 inline image (iTerm2, WezTerm, mintty) — in the message over its half blocks, and
full size (alt+i) — read back as the bytes the real app writes to a pseudo-terminal.

Checked: the message's picture is painted over its half blocks once the dialog holds still; the full-size one
is written after the frame that draws the view's (blank) cells, at the picture's first cell with the cursor
saved and restored around it; a sixel image is sized by the cell pixels the terminal reports with its window
size and read back pixel by pixel; an iTerm2 image is the scaled PNG stretched over the picture's cells; a new
window size wipes the picture and makes it again at the new size; esc clears the screen before the repaint
that brings the dialog back, and then only the message's picture is painted again, at its place.

Both were also looked at in Debian's xterm 379 (`xterm -ti vt340`, `[ui] images = "sixel"`) under Xvfb
(docs/attachments.md).
"""

from __future__ import annotations

import base64
import re
import sys
import time
from pathlib import Path

import pytest

from tests.llm_server import LLMServer
from tests.tui.chat.sixel_reader import read_sixel
from tests.tui.main.test_attach_snapshots import quadrants
from tests.tui.platform.test_hostile_terminal import EmulatedTerminal
from tests.tui.platform.test_kitty_graphics import make_home, run_env
from visindigo.tui.chat.attachments import kitty
from visindigo.tui.chat.attachments.cells import cell_size

#: A picture painted at a cell: cursor saved, moved, the picture, cursor restored.
PAINTED = re.compile(rb"\x1b7\x1b\[(\d+);(\d+)H(\x1bP[^\x1b]*\x1b\\|\x1b\]1337;File=[^\x07]*\x07)\x1b8")
SIXEL_OR_ITERM = re.compile(rb"\x1bP[0-9;]*q[^\x1b]*\x1b\\|\x1b\]1337;[^\x07]*\x07")
CELL = (8, 16)


class PixelTerminal(EmulatedTerminal):
    """pyte knows neither sixel nor iTerm2's OSC 1337: both are kept in `raw` but not fed to the emulator (one
    cut between two reads is held back until its end arrives)."""

    def __init__(self, argv: list[str], env: dict[str, str], **options: object) -> None:
        super().__init__(argv, env, **options)  # type: ignore[arg-type]
        self._held = b""
        feed = self._stream.feed

        def without_pictures(data: bytes) -> None:
            data = self._held + data
            self._held = b""
            for opener, closer in ((b"\x1bP", b"\x1b\\"), (b"\x1b]1337;", b"\x07")):
                start = data.rfind(opener)
                if start != -1 and data.find(closer, start) == -1:
                    data, self._held = data[:start], data[start:] + self._held
            feed(SIXEL_OR_ITERM.sub(b"", data))

        self._stream.feed = without_pictures  # type: ignore[method-assign]

    def wait_painted(self, since: int, timeout: float) -> None:
        """Until a picture is painted in what arrived after byte `since` and after the last screen clear there
        (a loaded machine takes seconds to make one), then a second more for anything painted again."""
        deadline = time.monotonic() + timeout
        while not PAINTED.search(bytes(self.raw[since:]).rpartition(b"\x1b[2J")[2]):
            if time.monotonic() > deadline:
                raise AssertionError(f"no picture was painted:\n{bytes(self.raw[since:])[-400:]!r}")
            self.pump(0.2)
        self.pump(1.0)


def near(colour: tuple[int, int, int], wanted: tuple[int, int, int]) -> bool:
    """Within 3 % each: the colour register is the quantizer's, not the pixel's own."""
    return all(abs(a - b) <= 3 for a, b in zip(colour, wanted, strict=True))


def half_block_cell(terminal: EmulatedTerminal) -> tuple[int, int]:
    """(row, column) of the first half block on the screen: the message's small picture."""
    for row, line in enumerate(terminal.screen.display):
        if "▀" in line:
            return row, line.index("▀")
    raise AssertionError(terminal.text())


def caption_cell(terminal: EmulatedTerminal) -> tuple[int, int]:
    """(row, column) of the full-size view's caption: the picture's first cell is just below it."""
    for row, line in enumerate(terminal.screen.display):
        column = line.find("esc closes")
        if column != -1:
            return row, line.find("shot .png")
    raise AssertionError(terminal.text())


@pytest.mark.parametrize(
    ("protocol", "environ"),
    [
        pytest.param("sixel", {"TERM": "foot"}, id="foot-sixel"),
        pytest.param("iterm", {"TERM": "xterm-256color", "LC_TERMINAL": "iTerm2"}, id="iterm2-over-ssh"),
    ],
)
def test_alt_i_has_the_terminal_paint_the_picture_over_the_views_cells(
    tmp_path: Path, llm_server: LLMServer, protocol: str, environ: dict[str, str]
) -> None:
    home = make_home(tmp_path, llm_server)
    env = run_env(home, **environ)
    del env["COLUMNS"], env["LINES"]  # they would pin the size Textual reads; the pty's own size is resized below
    terminal = PixelTerminal([sys.executable, "-m", "visindigo"], env, cell=CELL)
    try:
        terminal.wait_for("Four coloured quarters", 60)
        terminal.wait_for("▀", 30)  # the message's small picture: half blocks
        terminal.wait_painted(0, 30)  # ... and over them, once the dialog holds still, its pixels
        small = PAINTED.findall(bytes(terminal.raw).rpartition(b"\x1b[2J")[2])  # (one the start moved is wiped)
        small_cell = half_block_cell(terminal)
        before = len(terminal.raw)
        terminal.type(b"\x1bi")  # alt+i
        terminal.wait_for("esc closes", 30)
        terminal.wait_painted(before, 30)
        caption = caption_cell(terminal)
        opened = bytes(terminal.raw[before:])
        terminal.resize(120, 36)
        terminal.wait_painted(before + len(opened), 30)
        resized_caption = caption_cell(terminal)
        resized = bytes(terminal.raw[before + len(opened) :])
        terminal.type(b"\x1b")
        terminal.wait_gone("esc closes", 30)
        terminal.wait_painted(before + len(opened) + len(resized), 30)
        back = terminal.text()
        back_cell = half_block_cell(terminal)
    finally:
        terminal.close()

    # the message's picture: over its half blocks, 24 × 6 cells (painted again, the same, after a frame that
    # redraws them: the half blocks drawn in their thread after the picture was painted over their blank place)
    assert small and {(int(row) - 1, int(column) - 1, data) for row, column, data in small} == {
        (*small_cell, small[0][2])
    }
    if protocol == "sixel":
        small_width, small_height, _ = read_sixel(small[0][2].decode())
        assert (small_width, small_height) == (24 * CELL[0], 6 * CELL[1])
    else:
        assert b"width=24;height=6;" in small[0][2]

    painted = PAINTED.findall(opened)
    assert len(painted) == 1, opened[-400:]  # once: no frame wrote over it while it was shown
    row, column, data = int(painted[0][0]) - 1, int(painted[0][1]) - 1, painted[0][2].decode()
    assert (row, column) == (caption[0] + 1, caption[1])  # its first cell, just below the caption
    assert opened.index(b"esc closes") < opened.index(painted[0][2])  # after the frame that drew the view
    # the view is 96 × 27 cells at most on a 100 × 30 screen; the 64 × 32 image keeps its 2 : 1 aspect there
    columns, rows = cell_size(64, 32, 96, 27)
    assert (columns, rows) == (96, 24)
    if protocol == "sixel":
        width, height, pixels = read_sixel(data)
        assert width <= columns * CELL[0] and height <= rows * CELL[1] and height % 6 == 0
        assert abs(width / height - 2) < 0.05 and width >= 400  # filling the cells, at the reported cell size
        assert near(pixels[(width * 4 // 10, height // 10)], (86, 15, 15))  # the red quarter (220, 40, 40)
        assert near(pixels[(width * 6 // 10, height * 9 // 10)], (90, 78, 11))  # the yellow one (230, 200, 30)
    else:
        found = re.fullmatch(r"\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]*)\x07", data)
        assert found is not None
        keys = dict(pair.split("=") for pair in found.group(1).split(";"))
        assert (keys["width"], keys["height"], keys["preserveAspectRatio"]) == (str(columns), str(rows), "1")
        assert base64.standard_b64decode(found.group(2)) == kitty.scaled_png("x", quadrants(), columns, rows)[0]

    # a new size: the picture made again, larger, at the new view's first cell
    again = PAINTED.findall(resized)
    assert again, resized[-400:]
    cleared = resized.rindex(b"\x1b[2J")  # the old picture's pixels wiped, never painted at its old cells
    assert all(match.start() > cleared for match in PAINTED.finditer(resized))
    row, column = int(again[-1][0]) - 1, int(again[-1][1]) - 1
    assert (row, column) == (resized_caption[0] + 1, resized_caption[1])
    if protocol == "sixel":
        assert read_sixel(again[-1][2].decode())[0] > width
    else:
        assert b"width=%d;height=%d" % cell_size(64, 32, 116, 33) in again[-1][2]  # 116 × 29

    # esc: the screen cleared before the frame that repaints every cell; then only the message's picture
    closing = bytes(terminal.raw[before + len(opened) + len(resized) :])
    cleared = closing.find(b"\x1b[2J")
    assert cleared != -1 and all(match.start() > cleared for match in PAINTED.finditer(closing))
    painted_back = PAINTED.findall(closing)
    assert {(int(row) - 1, int(column) - 1, data) for row, column, data in painted_back} == {
        (*back_cell, small[0][2])  # the same picture, made once
    }
    assert "Four coloured quarters" in back
