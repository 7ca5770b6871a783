"""An image drawn by the terminal as pixels at the cursor: sixel (foot, mlterm, Konsole, Windows Terminal, xterm
as a VT340, WezTerm) or iTerm2's inline images (iTerm2, WezTerm, mintty).

Both protocols paint pixels where the cursor is, over the cells, rather than placing text the app can redraw
(kitty's placeholders, `kitty.py`): a scroll or a repaint of those cells leaves the picture behind or wipes it.
So they are painted only over a widget that holds still (`painter.py`), with its half blocks beneath.

This module only makes the bytes; nothing here touches the terminal.
"""

from __future__ import annotations

import base64
import io
import re
import threading
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL.Image import Image

__all__ = ["MAX_SIXEL_SIDE", "fit", "iterm_inline", "picture", "sixel", "sixel_image"]

#: xterm's default `maxGraphicSize` (1000×1000): a larger sixel image is cut, so none is made larger.
MAX_SIXEL_SIDE = 1000
#: The most colours a sixel image defines (a VT340 had 16; xterm, foot and mlterm take 256 registers and more).
SIXEL_COLOURS = 256
#: A sixel image is drawn in bands of six pixel rows.
BAND = 6
#: A JPEG file's first bytes: an iTerm2 picture of a photograph is sent as a JPEG, not a lossless PNG.
JPEG_MAGIC = b"\xff\xd8\xff"
JPEG_QUALITY = 85
#: Pictures kept made (`picture`): a dialog's worth of small ones, or a few full-size ones (≤ 2 MB each).
KEPT_PICTURES = 24

_made: dict[tuple[str, str, int, int, tuple[int, int]], str] = {}
_making = threading.Lock()

_SIXEL_CHAR = bytes(range(63, 63 + 64)) + bytes(192)  # a 6-bit column (0..63) → its sixel character
_LONG_RUN = re.compile(rb"(.)\1{3,}")


def fit(width: int, height: int, box_width: int, box_height: int) -> tuple[int, int]:
    """The size of a `width` × `height` image scaled to fill the box (a small one enlarged, as the terminal
    enlarges a kitty or iTerm2 picture to its cells; the aspect kept; at least 1×1), its height a whole number
    of sixel bands when it has more than one (so the last band does not reach into the cell row under the
    box) — rounded up where the box has room, so a picture made for its cells leaves no strip of them showing."""
    scale = min(box_width / max(1, width), box_height / max(1, height))
    fitted_width = max(1, min(box_width, round(width * scale)))
    fitted_height = max(1, min(box_height, round(height * scale)))
    if fitted_height > BAND:
        whole_bands = -(-fitted_height // BAND) * BAND  # up (a stretch of < 6 pixels), unless out of the box
        fitted_height = whole_bands if whole_bands <= box_height else fitted_height - fitted_height % BAND
    return fitted_width, fitted_height


def sixel_image(data: bytes, box_width: int, box_height: int) -> Image:
    """The image in `data` decoded, turned as its EXIF says, scaled into a box of pixels (and into xterm's
    limit), flattened onto black: an RGB image ready for `sixel`. Raises OSError / ValueError for a file that
    does not decode."""
    from PIL import Image, ImageOps

    box = (min(box_width, MAX_SIXEL_SIDE), min(box_height, MAX_SIXEL_SIDE))
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.draft("RGB", box)  # a JPEG decodes at a fraction of its size
            turned = ImageOps.exif_transpose(opened) or opened
            size = fit(turned.width, turned.height, *box)
            rgba = turned.convert("RGBA").resize(size, Image.Resampling.LANCZOS)
    except SyntaxError as error:  # Pillow's word for some broken files
        raise ValueError(str(error)) from error
    flat = Image.new("RGB", rgba.size, (0, 0, 0))
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return flat


def sixel(image: Image) -> str:
    """`image` (RGB) as one sixel DCS string: at most `SIXEL_COLOURS` colour registers, 1:1 pixels, each band
    written colour by colour with runs of four or more repeated columns compressed.

    A band's columns for one colour are found without a Python loop over pixels: each of its six rows is
    mapped to 0/1 bytes for that colour (`bytes.translate`), read as one big integer and weighted by its row's
    bit; as no byte exceeds 63 the sum has no carries, so its bytes are the band's sixel columns."""
    from PIL import Image as PIL

    width, height = image.size
    quantized = image.quantize(colors=SIXEL_COLOURS, method=PIL.Quantize.FASTOCTREE)
    pixels = quantized.tobytes()
    used = sorted(set(pixels))
    palette = quantized.getpalette() or []
    out = [f'\x1bP0;1;0q"1;1;{width};{height}']
    for index in used:
        red, green, blue = palette[3 * index : 3 * index + 3]
        out.append(f"#{index};2;{red * 100 // 255};{green * 100 // 255};{blue * 100 // 255}")
    body = bytearray()
    for top in range(0, height, BAND):
        rows = [pixels[(top + k) * width : (top + k + 1) * width] for k in range(min(BAND, height - top))]
        first = True
        for index in sorted(set(b"".join(rows))):
            only = _only(index)
            columns = 0
            for bit, row in enumerate(rows):
                if index in row:
                    columns += int.from_bytes(row.translate(only), "big") << bit
            line = columns.to_bytes(width, "big").translate(_SIXEL_CHAR).rstrip(b"?")
            if not first:
                body += b"$"  # back to the band's first column for the next colour
            first = False
            body += b"#%d" % index + _LONG_RUN.sub(_run, line)
        body += b"-"
    out.append(body.decode("ascii"))
    out.append("\x1b\\")
    return "".join(out)


def iterm_inline(png: bytes, columns: int, rows: int) -> str:
    """`png` as an iTerm2 inline image (OSC 1337 `File=`) stretched over `columns` × `rows` cells with its aspect
    kept, the cursor left where it was (`doNotMoveCursor`, iTerm2 3.5+ and WezTerm; older ones move it, which
    the caller's save and restore of the cursor undoes)."""
    data = base64.standard_b64encode(png).decode("ascii")
    keys = f"inline=1;size={len(png)};width={columns};height={rows};preserveAspectRatio=1;doNotMoveCursor=1"
    return f"\x1b]1337;File={keys}:{data}\x07"


def picture(protocol: str, key: str, data: bytes, columns: int, rows: int, cell: tuple[int, int]) -> str:
    """The image in `data` (`key`: its hash) as a `"sixel"` or `"iterm"` picture over `columns` × `rows` cells
    of `cell` pixels. The last few are kept: a message's picture is mounted again each time the dialog's window
    of messages comes back to it. Raises OSError / ValueError for a file that does not decode."""
    found = _made.get((protocol, key, columns, rows, cell))
    if found is None:
        if protocol == "sixel":
            found = sixel(sixel_image(data, columns * cell[0], rows * cell[1]))
        else:
            from visindigo.tui.chat.attachments import kitty

            png, _, _ = kitty.scaled_png(key, data, columns, rows)
            found = iterm_inline(_as_jpeg(png) if data.startswith(JPEG_MAGIC) else png, columns, rows)
        with _making:  # (made in worker threads)
            _made[(protocol, key, columns, rows, cell)] = found
            while len(_made) > KEPT_PICTURES:
                del _made[next(iter(_made))]
    return found


def _as_jpeg(png: bytes) -> bytes:
    """A photograph's scaled picture as a JPEG: a fifth of the PNG's bytes or less (iTerm2, WezTerm and mintty
    read either), which counts over SSH, where the picture is sent again each time it is painted."""
    from PIL import Image

    out = io.BytesIO()
    with Image.open(io.BytesIO(png)) as scaled:
        scaled.convert("RGB").save(out, "JPEG", quality=JPEG_QUALITY)
    return out.getvalue()


@cache
def _only(index: int) -> bytes:
    """The translation table mapping colour `index` to 1 and every other to 0."""
    return bytes(1 if value == index else 0 for value in range(256))


def _run(match: re.Match[bytes]) -> bytes:
    run = match.group(0)
    return b"!%d" % len(run) + run[:1]
