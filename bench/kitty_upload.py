"""What sending an attached image to kitty or Ghostty costs: the PNG the app makes (at most 16×32 pixels a
cell), the bytes of its upload (base64 in APC chunks, plus the placement) and the time to scale and encode it,
for the picture in a message (24×6 cells) and the full-size view at 80×24 and 120×40 (`PictureScreen`: the
screen less 4 columns and 3 rows). The same three images as `attachment_images.py`. The upload goes once per
picture shown; the half blocks cost nothing to send but their cells.

    .venv/bin/python bench/kitty_upload.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.attachment_images import screenshot
from tests.engine.attachments.files import photo, png
from visindigo.tui.chat.attachments import kitty

SIZES = {"message 24×6": (24, 6), "full 80×24": (76, 21), "full 120×40": (116, 37)}


def main() -> None:
    images = {
        "photo 4032×3024 JPEG": photo(4032, 3024),
        "screenshot 3840×2160 PNG": screenshot(3840, 2160),
        "noise 3000×3000 PNG": png(3000, 3000, noise=True),
    }
    print(f"{'image':26} {'original':>12} | {'shown as':12} {'cells':>6} {'png':>10} {'upload':>10} {'scale':>7}")
    for label, data in images.items():
        for name, (columns, rows) in SIZES.items():
            started = time.perf_counter()
            png_bytes, used_columns, used_rows = kitty.scaled_png(f"{label}{name}", data, columns, rows)
            took = time.perf_counter() - started
            upload = kitty.transmit(1, png_bytes, used_columns, used_rows)
            print(
                f"{label:26} {len(data):>12,} | {name:12} {used_columns:>3}×{used_rows:<2} {len(png_bytes):>10,} "
                f"{len(upload):>10,} {took * 1000:>5.0f}ms"
            )


if __name__ == "__main__":
    main()
