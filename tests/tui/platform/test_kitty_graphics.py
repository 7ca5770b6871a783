"""Issue 26 item 18: attached images drawn by the terminal (kitty's graphics protocol, Unicode placeholders),
read back as the bytes the real app writes to a pseudo-terminal.

No terminal here shows kitty placeholders (Debian's kitty 0.26.5 predates them), so what is checked is what a
terminal would get: the upload (APC chunks whose base64 decodes to the scaled PNG, quiet, with a virtual
placement of the picture's size), sent before the first frame that draws the placeholder cells; the cells
themselves as a terminal emulator (pyte) holds them — U+10EEEE with its row and column marks, the image id in
the 24-bit foreground; alt+i sending the full-size image and its deletion on esc. Elsewhere (inside tmux, or a
terminal not known to show placeholders) nothing of it is sent and the half blocks are drawn as before.
"""

from __future__ import annotations

import base64
import io
import os
import re
import signal
import sys
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from tests.llm_server import LLMServer, openai_stream
from tests.tui.main.test_attach_snapshots import quadrants
from tests.tui.platform.test_hostile_terminal import EmulatedTerminal
from visindigo.engine import Center, Message, Role
from visindigo.engine.attachments import Attachment, AttachmentKind
from visindigo.tui.chat.attachments import kitty
from visindigo.tui.chat.attachments.lines import PREVIEW_COLUMNS, PREVIEW_ROWS

APC = re.compile(rb"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")
PLACEHOLDER = kitty.PLACEHOLDER.encode()
#: The stored name carries an escape sequence: it is outside text and must stay cleaned next to the picture.
NAME = "shot \x1b]2;pwned\x07.png"


class KittyTerminal(EmulatedTerminal):
    """pyte does not know APC: the graphics commands are kept in `raw` but not fed to the emulator (an APC cut
    between two reads is held back until its end arrives)."""

    def __init__(self, argv: list[str], env: dict[str, str], **size: int) -> None:
        super().__init__(argv, env, **size)
        self._held = b""
        feed = self._stream.feed

        def without_apc(data: bytes) -> None:
            data = self._held + data
            start = data.rfind(b"\x1b_")
            if start != -1 and data.find(b"\x1b\\", start) == -1:
                data, self._held = data[:start], data[start:]
            else:
                self._held = b""
            feed(APC.sub(b"", data))

        self._stream.feed = without_apc  # type: ignore[method-assign]

    def wait_for(self, needle: str, timeout: float) -> None:
        """As the base's, but a needle already on the screen counts (the idle app may send nothing more)."""
        if needle in self.text():
            self.seen[needle] = True
        super().wait_for(needle, timeout)


def make_home(tmp_path: Path, server: LLMServer, images: str = "auto") -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(textwrap.dedent(f"""
        default_provider = "local"
        [ui]
        images = "{images}"
        [providers.local]
        kind = "openai"
        base_url = "{server.openai_url}"
        default_model = "eyes"
        [[providers.local.models]]
        id = "eyes"
        capabilities = ["text", "image"]
        """))  # fmt: skip
    center = Center.open(home)
    try:
        dialog = center.create_dialog()
        dialog.title = "Pictures"
        picture = Attachment(NAME, AttachmentKind.IMAGE, "image/png", quadrants(), width=64, height=32)
        dialog.append_message(Message(Role.USER, "What is in the picture?", attachments=[picture]))
        dialog.append_message(Role.ASSISTANT, "Four coloured quarters.")
    finally:
        center.close()
    return home


def run_env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TEXTUAL", "VISINDIGO", "KITTY", "TMUX", "STY", "TERM_PROGRAM", "NO_COLOR"))
    }
    env.update(VISINDIGO_HOME=str(home), COLUMNS="100", LINES="30", COLORTERM="truecolor", **extra)
    return env


def graphics_commands(raw: bytes) -> list[tuple[dict[str, str], bytes, int]]:
    """Each APC graphics command: its keys, its payload and where it ends in the stream."""
    found = []
    for match in APC.finditer(raw):
        keys = dict(pair.split("=", 1) for pair in match.group(1).decode().split(",") if pair)
        found.append((keys, match.group(2) or b"", match.end()))
    return found


def uploads(raw: bytes) -> dict[int, tuple[bytes, dict[str, str], int]]:
    """image id → (the decoded upload, its placement's keys, where the placement ends in the stream)."""
    result: dict[int, tuple[bytes, dict[str, str], int]] = {}
    current: int | None = None
    payload = b""
    for keys, data, end in graphics_commands(raw):
        if keys.get("a") == "t":
            assert keys["f"] == "100" and keys["q"] == "2", keys  # a PNG, sent quietly
            current, payload = int(keys["i"]), data
        elif keys.get("a") in (None, "") and "m" in keys:
            assert current is not None and set(keys) <= {"m", "q"}, keys  # follow-up chunks carry only m (and q)
            payload += data
        elif keys.get("a") == "p":
            assert current == int(keys["i"]) and keys["U"] == "1" and keys["q"] == "2", keys
            result[current] = (base64.standard_b64decode(payload), keys, end)
            current = None
    return result


def deletions(raw: bytes) -> list[int]:
    return [int(keys["i"]) for keys, _, _ in graphics_commands(raw) if keys.get("a") == "d" and keys.get("d") == "I"]


def placeholder_screen(terminal: EmulatedTerminal) -> dict[tuple[int, int], tuple[str, str]]:
    """(line, column) → (the cell's text, its foreground) of every placeholder cell on the emulated screen."""
    cells = {}
    for y, line in terminal.screen.buffer.items():
        for x, cell in line.items():
            if cell.data.startswith(kitty.PLACEHOLDER):
                cells[(y, x)] = (cell.data, cell.fg)
    return cells


def expected_cells(image_id: int, columns: int, rows: int) -> list[list[str]]:
    marks = kitty.DIACRITICS
    return [[kitty.PLACEHOLDER + marks[row] + marks[column] for column in range(columns)] for row in range(rows)]


def start(home: Path, **extra: str) -> KittyTerminal:
    terminal = KittyTerminal([sys.executable, "-m", "visindigo"], run_env(home, **extra))
    terminal.wait_for("Four coloured quarters", 60)  # the last dialog, opened again at start
    return terminal


def test_in_kitty_the_image_is_uploaded_once_then_drawn_as_placeholders_and_alt_i_shows_it_full_size(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    llm_server.queue(openai_stream([f"word{i} " for i in range(60)] + ["STREAMEND"], delay_between=0.01))
    terminal = start(make_home(tmp_path, llm_server), TERM="xterm-kitty")
    try:
        terminal.wait_for("shot .png", 30)
        terminal.pump(1.5)  # the picture is scaled in a thread, sent, then drawn
        preview = placeholder_screen(terminal)
        # a reply streaming under the picture redraws and scrolls the dialog: the image is not sent again
        terminal.type(b"and now?")
        terminal.pump(0.3)
        terminal.type(b"\r")
        terminal.wait_for("STREAMEND", 60)
        terminal.pump(0.5)
        assert len(uploads(bytes(terminal.raw))) == 1
        terminal.type(b"\x1bi")  # alt+i: the picture full size
        terminal.wait_for("esc closes", 30)
        terminal.pump(1.5)
        full = placeholder_screen(terminal)
        terminal.type(b"\x1b")
        terminal.wait_gone("esc closes", 30)
        terminal.pump(1.0)
        after = placeholder_screen(terminal)
        terminal.type(b"\x0e")  # ctrl+n: a new dialog, the picture's goes
        terminal.pump(1.0)
        switched = bytes(terminal.raw)
        gone = placeholder_screen(terminal)
    finally:
        terminal.close()
    raw = bytes(terminal.raw)
    sent = uploads(raw)
    assert len(sent) == 2, list(sent)  # the preview, then the full-size picture; each once
    (small_id, (small_png, small_keys, small_end)), (big_id, (big_png, big_keys, _)) = sent.items()

    # the preview: the PNG the app scaled, placed over the cells its half blocks would take
    png, columns, rows = kitty.scaled_png("x", quadrants(), PREVIEW_COLUMNS, PREVIEW_ROWS)
    assert small_png == png
    assert Image.open(io.BytesIO(small_png)).size == (64, 32)  # smaller than 24×6 cells of 16×32: not enlarged
    assert (int(small_keys["c"]), int(small_keys["r"])) == (columns, rows) == (24, 6)
    # uploaded before the first frame that draws a placeholder
    assert small_end <= raw.index(PLACEHOLDER)

    # on the screen: the placeholder grid, every cell with its row and column marks, the id in the foreground
    assert preview, terminal.text()
    top = min(preview)
    grid = expected_cells(small_id, columns, rows)
    for row in range(rows):
        for column in range(columns):
            text, fg = preview[(top[0] + row, top[1] + column)]
            assert text == grid[row][column]
            assert fg == f"{small_id:06x}"
    assert len(preview) == columns * rows
    assert "▀" not in terminal.text()  # no half blocks were drawn

    # alt+i: a larger upload with its own id, drawn as its own placeholders; esc deletes it from the terminal
    assert big_id != small_id
    assert int(big_keys["c"]) > columns and int(big_keys["r"]) > rows
    assert Image.open(io.BytesIO(big_png)).size == (64, 32)
    assert {fg for _, fg in full.values()} >= {f"{big_id:06x}"}
    assert big_id in deletions(raw)
    assert small_id not in deletions(raw[: raw.rindex(b"esc closes")])  # the preview is kept while it is shown
    assert {fg for _, fg in after.values()} == {f"{small_id:06x}"}
    assert small_id in deletions(switched) and gone == {}  # another dialog: the image is deleted from the terminal
    # the name next to it is outside text: cleaned, as everywhere
    assert b"pwned\x07" not in raw and b"\x1b]2;pwned" not in raw


def test_a_png_pasted_into_the_composer_is_sent_and_its_picture_uploaded_to_kitty(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    """The way a user brings a screenshot in: its path pasted (as a terminal pastes a dropped file), sent to a
    model that takes images, and the new message's picture drawn by the terminal."""
    home = make_home(tmp_path, llm_server)
    shot = tmp_path / "dropped shot.png"
    shot.write_bytes(quadrants())
    llm_server.queue(openai_stream(["Four quarters", " again. DONE"]))
    terminal = start(home, TERM="xterm-kitty")
    try:
        terminal.wait_for("shot .png", 30)
        terminal.pump(1.5)
        first = set(uploads(bytes(terminal.raw)))
        terminal.type(b"\x0e")  # ctrl+n: a new dialog
        terminal.pump(1.0)
        terminal.type(b"\x1b[200~" + str(shot).replace(" ", "\\ ").encode() + b"\x1b[201~")
        terminal.wait_for("dropped shot.png", 30)
        terminal.type(b"what is it?")
        terminal.pump(0.3)
        terminal.type(b"\r")
        terminal.wait_for("DONE", 60)
        terminal.pump(1.5)
        shown = placeholder_screen(terminal)
    finally:
        terminal.close()
    raw = bytes(terminal.raw)
    new = {image_id: sent for image_id, sent in uploads(raw).items() if image_id not in first}
    assert len(new) == 1, list(new)
    ((image_id, (png, placement, end)),) = new.items()
    assert png == kitty.scaled_png("x", quadrants(), PREVIEW_COLUMNS, PREVIEW_ROWS)[0]
    assert (placement["c"], placement["r"]) == ("24", "6")
    colour = f"38;2;{image_id >> 16};{(image_id >> 8) & 255};{image_id & 255}".encode()
    assert end <= raw.index(colour)  # uploaded before any cell in the image's colour is drawn
    assert {fg for _, fg in shown.values()} == {f"{image_id:06x}"} and len(shown) == 24 * 6
    content = llm_server.requests[-1].json["messages"][-1]["content"]
    assert any(part.get("type") == "image_url" for part in content)  # and the model got the picture


def test_after_a_suspend_and_resume_the_image_is_sent_again(tmp_path: Path, llm_server: LLMServer) -> None:
    """Leaving the alternate screen may clear its images; the placeholders are repainted on resume, and the
    image is sent again before them."""
    terminal = start(make_home(tmp_path, llm_server), TERM="xterm-kitty")
    try:
        terminal.wait_for("shot .png", 30)
        terminal.pump(1.5)
        (image_id,) = uploads(bytes(terminal.raw))
        before = suspend_and_resume(terminal)
    finally:
        terminal.close()
    after = bytes(terminal.raw)[before:]
    resumed = after.index(b"\x1b[?1049h")  # back on the alternate screen
    again = uploads(after[resumed:])
    assert list(again) == [image_id]  # the same image, sent again
    assert again[image_id][2] + resumed <= after.index(PLACEHOLDER, resumed)  # before its placeholders


def test_after_a_suspend_and_resume_the_screen_is_drawn_again(tmp_path: Path, llm_server: LLMServer) -> None:
    """Any terminal: Textual re-enters the alternate screen, which shows empty, and draws nothing until something
    changes unless told to (the output stage repaints every cell on resume)."""
    terminal = start(make_home(tmp_path, llm_server), TERM="xterm-256color")
    try:
        terminal.pump(1.0)
        before = suspend_and_resume(terminal)
    finally:
        terminal.close()
    after = bytes(terminal.raw)[before:]
    resumed = after.index(b"\x1b[?1049h")  # back on the alternate screen
    assert b"Four coloured quarters" in after[resumed:] and "▀".encode() in after[resumed:]


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux-0/default,1,0"}, id="kitty-inside-tmux"),
        pytest.param({"TERM": "xterm-256color"}, id="xterm-256color"),
        pytest.param({"TERM": "xterm-kitty", "NO_COLOR": "1"}, id="kitty-no-color"),
    ],
)
def test_elsewhere_no_graphics_are_sent_and_the_half_blocks_are_drawn(
    tmp_path: Path, llm_server: LLMServer, extra: dict[str, str]
) -> None:
    terminal = start(make_home(tmp_path, llm_server), **extra)
    try:
        terminal.wait_for("▀", 30)
    finally:
        terminal.close()
    raw = bytes(terminal.raw)
    assert b"\x1b_G" not in raw and PLACEHOLDER not in raw


def test_the_setting_cells_keeps_half_blocks_even_in_kitty(tmp_path: Path, llm_server: LLMServer) -> None:
    terminal = start(make_home(tmp_path, llm_server, images="cells"), TERM="xterm-kitty")
    try:
        terminal.wait_for("▀", 30)
    finally:
        terminal.close()
    assert b"\x1b_G" not in terminal.raw and PLACEHOLDER not in terminal.raw


def suspend_and_resume(terminal: KittyTerminal) -> int:
    """Stop the app as ctrl+z in a shell does (Textual leaves the screen and stops itself), then continue it; how
    much it had written before."""
    before = len(terminal.raw)
    os.kill(terminal.process.pid, signal.SIGTSTP)
    terminal.pump(1.0)
    os.kill(terminal.process.pid, signal.SIGCONT)
    terminal.pump(2.0)
    return before
