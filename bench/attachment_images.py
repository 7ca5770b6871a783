"""An attached image's bytes before and after it is brought under each provider's limits, and how long that takes.

Three real images made with Pillow: a 12-megapixel phone-like photo (JPEG, smooth gradients with grain), a 4K
screenshot-like PNG (flat areas and text-like stripes) and a 3000×3000 PNG of noise (which does not compress — the
case where scaling alone is not enough and the copy is re-encoded as JPEG). For each: the original's bytes and
pixels, then for OpenAI's limits (2048 px long side, 20 MB) and Anthropic's (1568 px, 3.75 MB of image = 5 MB of
base64) the bytes and pixels of what is sent, the bytes of the base64 text in the request, and the time to
prepare it (once; later sends reuse the cached copy). The time to draw the half-block picture of a message
(24×6 cells) is the last column.

    .venv/bin/python bench/attachment_images.py
"""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image, ImageDraw

from tests.engine.attachments.files import photo, png
from visindigo.engine.attachments import ANTHROPIC_IMAGE_LIMITS, OPENAI_IMAGE_LIMITS, Attachment, AttachmentKind
from visindigo.engine.attachments.images import _cache, check_image, prepare_image


def screenshot(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), (245, 245, 245))
    draw = ImageDraw.Draw(image)
    for y in range(40, height, 28):
        for x in range(40, width - 400, 900):
            draw.rectangle((x, y, x + 600 - (y * 7) % 300, y + 12), fill=(40, 40, 60))
    draw.rectangle((0, 0, width, 36), fill=(30, 90, 200))
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


def main() -> None:
    from visindigo.tui.chat.attachments.cells import image_cells

    images = {
        "photo 4032×3024 JPEG": photo(4032, 3024),
        "screenshot 3840×2160 PNG": screenshot(3840, 2160),
        "noise 3000×3000 PNG": png(3000, 3000, noise=True),
    }
    print(f"{'image':26} {'original':>12} | {'limits':9} {'sent':>10} {'base64':>10} {'pixels':>11} {'ratio':>6} "
          f"{'prepare':>8} | {'cells':>6}")  # fmt: skip
    for label, data in images.items():
        width, height, mime = check_image(data, label)
        attachment = Attachment(label, AttachmentKind.IMAGE, mime, data, width=width, height=height)
        started = time.perf_counter()
        image_cells(attachment.sha256, data, 24, 6)
        cells = time.perf_counter() - started
        for name, limits in (("OpenAI", OPENAI_IMAGE_LIMITS), ("Anthropic", ANTHROPIC_IMAGE_LIMITS)):
            _cache.clear()
            started = time.perf_counter()
            prepared = prepare_image(attachment, limits)
            took = time.perf_counter() - started
            base64_bytes = (len(prepared.data) + 2) // 3 * 4
            print(
                f"{label:26} {len(data):>12,} | {name:9} {len(prepared.data):>10,} {base64_bytes:>10,} "
                f"{prepared.width:>5}×{prepared.height:<5} {len(prepared.data) / len(data):>6.2f} "
                f"{took * 1000:>6.0f}ms | {cells * 1000:>4.0f}ms"
            )


if __name__ == "__main__":
    main()
