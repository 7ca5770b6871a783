"""An image shown by the terminal itself, through kitty's graphics protocol with Unicode placeholders
(https://sw.kovidgoyal.net/kitty/graphics-protocol/#unicode-placeholders, kitty 0.28+ and Ghostty).

The picture is sent once, as a PNG in APC chunks, with a *virtual* placement of `columns` × `rows` cells; the
screen then holds ordinary text: one placeholder character (U+10EEEE) per cell, its row and column told by two
combining marks from kitty's list, the image's id in the 24-bit foreground colour. Being text, the cells move,
scroll, get covered and redrawn as the rest of the screen does — the only way an image survives Textual's
redraws and the output stage's diffing (a placement at the cursor would be left behind by the first scroll).

This module only makes the bytes and the cells; `tui/platform/graphics.py` decides whether the terminal shows
them and writes them through the app's own output, in order with its frames.
"""

from __future__ import annotations

import base64
import io
from collections import OrderedDict

from textual.color import Color
from textual.content import Content, Span
from textual.style import Style

from visindigo.tui.chat.attachments.cells import cell_size

__all__ = ["DIACRITICS", "PLACEHOLDER", "delete", "placeholder_cells", "scaled_png", "transmit"]

PLACEHOLDER = "\U0010eeee"

#: kitty's gen/rowcolumn-diacritics.txt (297 marks, combining class 230): the mark at index n says "row n" as the
#: first mark of a placeholder, "column n" as the second.
_CODES = """
0305 030D 030E 0310 0312 033D 033E 033F 0346 034A 034B 034C 0350 0351 0352 0357 035B 0363 0364 0365
0366 0367 0368 0369 036A 036B 036C 036D 036E 036F 0483 0484 0485 0486 0487 0592 0593 0594 0595 0597
0598 0599 059C 059D 059E 059F 05A0 05A1 05A8 05A9 05AB 05AC 05AF 05C4 0610 0611 0612 0613 0614 0615
0616 0617 0657 0658 0659 065A 065B 065D 065E 06D6 06D7 06D8 06D9 06DA 06DB 06DC 06DF 06E0 06E1 06E2
06E4 06E7 06E8 06EB 06EC 0730 0732 0733 0735 0736 073A 073D 073F 0740 0741 0743 0745 0747 0749 074A
07EB 07EC 07ED 07EE 07EF 07F0 07F1 07F3 0816 0817 0818 0819 081B 081C 081D 081E 081F 0820 0821 0822
0823 0825 0826 0827 0829 082A 082B 082C 082D 0951 0953 0954 0F82 0F83 0F86 0F87 135D 135E 135F 17DD
193A 1A17 1A75 1A76 1A77 1A78 1A79 1A7A 1A7B 1A7C 1B6B 1B6D 1B6E 1B6F 1B70 1B71 1B72 1B73 1CD0 1CD1
1CD2 1CDA 1CDB 1CE0 1DC0 1DC1 1DC3 1DC4 1DC5 1DC6 1DC7 1DC8 1DC9 1DCB 1DCC 1DD1 1DD2 1DD3 1DD4 1DD5
1DD6 1DD7 1DD8 1DD9 1DDA 1DDB 1DDC 1DDD 1DDE 1DDF 1DE0 1DE1 1DE2 1DE3 1DE4 1DE5 1DE6 1DFE 20D0 20D1
20D4 20D5 20D6 20D7 20DB 20DC 20E1 20E7 20E9 20F0 2CEF 2CF0 2CF1 2DE0 2DE1 2DE2 2DE3 2DE4 2DE5 2DE6
2DE7 2DE8 2DE9 2DEA 2DEB 2DEC 2DED 2DEE 2DEF 2DF0 2DF1 2DF2 2DF3 2DF4 2DF5 2DF6 2DF7 2DF8 2DF9 2DFA
2DFB 2DFC 2DFD 2DFE 2DFF A66F A67C A67D A6F0 A6F1 A8E0 A8E1 A8E2 A8E3 A8E4 A8E5 A8E6 A8E7 A8E8 A8E9
A8EA A8EB A8EC A8ED A8EE A8EF A8F0 A8F1 AAB0 AAB2 AAB3 AAB7 AAB8 AABE AABF AAC1 FE20 FE21 FE22 FE23
FE24 FE25 FE26 10A0F 10A38 1D185 1D186 1D187 1D188 1D189 1D1AA 1D1AB 1D1AC 1D1AD 1D242 1D243 1D244
"""
DIACRITICS = tuple(chr(int(code, 16)) for code in _CODES.split())

#: The most rows or columns a placement can have (one mark per index).
MAX_CELLS = len(DIACRITICS)
#: An id must fit the 24-bit foreground colour (a third mark could carry a fourth byte; not needed here).
MAX_ID = 0xFFFFFF
#: Base64 bytes per APC chunk (the spec's limit; a multiple of 4, as every chunk but the last must be).
CHUNK = 4096
#: Pixels sent per cell. The terminal's real cell size is not asked (that needs a query answered on stdin while
#: the app reads its keys there); kitty fits the image to the placement either way, so this only bounds how
#: sharp it can be: a cell of a 2× screen is about 18×36 pixels, of a 1× screen 9×18.
CELL_PIXELS = (16, 32)
#: And at most this many pixels in all: a photo full size on a 120×40 screen would otherwise be a 2.7 MB PNG, whose
#: upload (3.7 MB of base64) an SSH link carries before the next frame (`bench/kitty_upload.py`).
MAX_PIXELS = 1_000_000

_APC, _ST = "\x1b_G", "\x1b\\"

_pngs: OrderedDict[tuple[str, int, int], tuple[bytes, int, int]] = OrderedDict()
_PNG_CACHE = 16


def transmit(image_id: int, png: bytes, columns: int, rows: int) -> str:
    """The upload of `png` as image `image_id` (quietly: `q=2`, so no answer comes back on the app's input),
    then its virtual placement over `columns` × `rows` placeholder cells."""
    _check(image_id, columns, rows)
    data = base64.standard_b64encode(png).decode("ascii")
    chunks = [data[start : start + CHUNK] for start in range(0, len(data), CHUNK)] or [""]
    out = []
    for index, chunk in enumerate(chunks):
        more = int(index < len(chunks) - 1)
        keys = f"a=t,f=100,i={image_id},q=2,m={more}" if index == 0 else f"m={more},q=2"
        out.append(f"{_APC}{keys};{chunk}{_ST}")
    out.append(f"{_APC}a=p,U=1,i={image_id},c={columns},r={rows},q=2{_ST}")
    return "".join(out)


def delete(image_id: int) -> str:
    """Delete image `image_id`'s placements and free its data (`d=I`, upper case: the data too)."""
    return f"{_APC}a=d,d=I,i={image_id},q=2{_ST}"


def placeholder_cells(image_id: int, columns: int, rows: int) -> Content:
    """`rows` lines of `columns` placeholder cells for image `image_id`: every cell carries both its row and its
    column mark, so any run of them the output stage re-sends alone is still placed right."""
    _check(image_id, columns, rows)
    colour = Color((image_id >> 16) & 0xFF, (image_id >> 8) & 0xFF, image_id & 0xFF)
    lines = [
        "".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[column] for column in range(columns)) for row in range(rows)
    ]
    text = "\n".join(lines)
    return Content(text, [Span(0, len(text), Style(foreground=colour))])


def scaled_png(key: str, data: bytes, max_columns: int, max_rows: int) -> tuple[bytes, int, int]:
    """The image as a PNG of at most `CELL_PIXELS` per cell (never larger than it is), with the columns and rows
    it takes — the same as its half-block picture's, so the layout does not depend on the terminal. Cached under
    `key` (the content's hash). Raises OSError / ValueError for an image that does not decode."""
    cache_key = (key, max_columns, max_rows)
    found = _pngs.get(cache_key)
    if found is not None:
        _pngs.move_to_end(cache_key)
        return found
    from PIL import Image, ImageOps

    try:
        with Image.open(io.BytesIO(data)) as opened:
            wanted = (max_columns * CELL_PIXELS[0], max_rows * CELL_PIXELS[1])
            opened.draft("RGB", wanted)  # a JPEG decodes at a fraction of its size
            image = ImageOps.exif_transpose(opened) or opened
            columns, rows = cell_size(image.width, image.height, max_columns, max_rows)
            image = image.convert("RGBA")
            box = (columns * CELL_PIXELS[0], rows * CELL_PIXELS[1])
            shrink = min(1.0, (MAX_PIXELS / (box[0] * box[1])) ** 0.5)
            image.thumbnail((int(box[0] * shrink), int(box[1] * shrink)), Image.Resampling.LANCZOS)
            out = io.BytesIO()
            image.save(out, "PNG")  # a new file: nothing of the original's metadata goes to the terminal
    except SyntaxError as error:  # Pillow's word for some broken files
        raise ValueError(str(error)) from error
    result = (out.getvalue(), columns, rows)
    _pngs[cache_key] = result
    while len(_pngs) > _PNG_CACHE:
        _pngs.popitem(last=False)
    return result


def _check(image_id: int, columns: int, rows: int) -> None:
    if not 0 < image_id <= MAX_ID:
        raise ValueError(f"a kitty image id is 1..{MAX_ID}, not {image_id}")
    if not (0 < columns <= MAX_CELLS and 0 < rows <= MAX_CELLS):
        raise ValueError(f"a placement is 1..{MAX_CELLS} cells each way, not {columns}×{rows}")
