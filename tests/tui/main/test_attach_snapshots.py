"""Snapshots of attached files: the attachment lines and the half-block picture in a message, the chips over the
composer, and one picture full size. Update with `pytest --snapshot-update` only after looking at the report."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from tests.tui.helpers import make_center
from visindigo.engine import Message, Role
from visindigo.engine.attachments import Attachment, AttachmentKind
from visindigo.tui.app import AppOptions, VisindigoApp


def quadrants() -> bytes:
    """A 64×32 PNG: red, green, blue and yellow quarters with a white diagonal — easy to tell apart in cells."""
    image = Image.new("RGB", (64, 32))
    for x in range(64):
        for y in range(32):
            colour = [(220, 40, 40), (40, 180, 60), (40, 80, 220), (230, 200, 30)][(x >= 32) + 2 * (y >= 16)]
            image.putpixel((x, y), (255, 255, 255) if abs(x - 2 * y) < 2 else colour)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def picture() -> Attachment:
    return Attachment("shots/quadrants.png", AttachmentKind.IMAGE, "image/png", quadrants(), width=64, height=32)


def app_with_attachments() -> VisindigoApp:
    center = make_center([])
    dialog = center.create_dialog()
    dialog.title = "Files"
    notes = Attachment("notes \x1b]2;x\x07.md", AttachmentKind.TEXT, "text/plain", b"# Notes\nhello\n")
    dialog.append_message(Message(Role.USER, "What is in the picture?", attachments=[picture(), notes]))
    dialog.append_message(Role.ASSISTANT, "Four coloured quarters crossed by a white line.")
    return VisindigoApp(center, AppOptions(stream_fps=30))


async def _ready(pilot: Any) -> None:
    screen = pilot.app.main_screen
    await pilot.pause()
    dialog = next(d for d in screen.center.dialogs if d.title == "Files")
    await screen.open_dialog(dialog)
    log = Attachment("build.log", AttachmentKind.TEXT, "text/plain", b"error: x\n" * 400)
    screen.workbench.pending_files.add(screen.dialog.id, log)
    screen.composer.input.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.3)


def test_attachments_in_a_message_and_over_the_composer(snap_compare: Any) -> None:
    """You should see the question "What is in the picture?" followed by two lines, "▣ shots/quadrants.png
    (image · 64×32 · …)" and "▣ notes .md (text · 14 B)" (the escape sequence in its name cleaned away), a
    picture of 24×6 cells drawn in half blocks between them — red and green quarters over blue and yellow, a white
    diagonal — then the answer; over the composer the chip "▣ build.log (text · 3.6 kB)  shift+tab to
    remove"."""
    assert snap_compare(app_with_attachments(), terminal_size=(80, 24), run_before=_ready)


def test_a_picture_full_size(snap_compare: Any) -> None:
    """You should see the quadrant picture (alt+i) filling most of the 80×24 screen in half blocks, headed
    "shots/quadrants.png (image · 64×32 · …) · esc closes"."""

    async def opened(pilot: Any) -> None:
        await _ready(pilot)
        await pilot.press("alt+i")
        await pilot.pause(0.3)

    assert snap_compare(app_with_attachments(), terminal_size=(80, 24), run_before=opened)
