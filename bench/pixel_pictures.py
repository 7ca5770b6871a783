"""What a sixel or iTerm2 terminal is sent for one picture: the bytes and the time to make them, for the picture
in a message (at most 24×6 cells) and the full-size view (alt+i) at 80×24 and 120×40 (`PictureScreen`: the
screen less 4 columns and 3 rows; the picture's aspect kept in cells) with a 10×20-pixel cell (xterm as a
VT340; foot and WezTerm report their own through the window size). The same three images as
`attachment_images.py` and `kitty_upload.py`. A picture is made once (the last 24 are kept); it is written
again, as is, each time its place has held still after a move, and after a frame that redraws its cells.

    .venv/bin/python bench/pixel_pictures.py
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.attachment_images import screenshot
from tests.engine.attachments.files import photo, png
from visindigo.tui.chat.attachments import pixels
from visindigo.tui.chat.attachments.cells import cell_size

VIEWS = {"message 24×6": (24, 6), "full 80×24": (76, 21), "full 120×40": (116, 37)}
CELL = (10, 20)


def image_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        return opened.size


def main() -> None:
    images = {
        "photo 4032×3024 JPEG": photo(4032, 3024),
        "screenshot 3840×2160 PNG": screenshot(3840, 2160),
        "noise 3000×3000 PNG": png(3000, 3000, noise=True),
    }
    print(
        f"{'image':26} | {'view':12} {'cells':>7} {'sixel px':>9} {'sixel':>10} {'make':>7} "
        f"| {'iterm2':>10} {'make':>7}"
    )
    for label, data in images.items():
        width, height = image_size(data)
        for name, box in VIEWS.items():
            columns, rows = cell_size(width, height, *box)
            image = pixels.sixel_image(data, columns * CELL[0], rows * CELL[1])  # (for its size in pixels)
            started = time.perf_counter()
            sixel = pixels.picture("sixel", f"{label}{name}", data, columns, rows, CELL)  # what the app sends
            sixel_took = time.perf_counter() - started
            started = time.perf_counter()
            inline = pixels.picture("iterm", f"{label}{name}", data, columns, rows, CELL)
            iterm_took = time.perf_counter() - started
            print(
                f"{label:26} | {name:12} {columns:>3}×{rows:<3} {image.width:>4}×{image.height:<4} {len(sixel):>10,} "
                f"{sixel_took * 1000:>5.0f}ms | {len(inline):>10,} {iterm_took * 1000:>5.0f}ms"
            )


if __name__ == "__main__":
    main()
