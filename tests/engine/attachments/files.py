"""Real files for the attachment tests: images made with Pillow, a PDF written by hand (pypdf reads, it does not
lay out text)."""

from __future__ import annotations

import io
import random

from PIL import Image


def png(width: int, height: int, *, noise: bool = False) -> bytes:
    """A real PNG: a flat colour, or noise (which does not compress)."""
    if noise:
        rng = random.Random(7)
        image = Image.frombytes("RGB", (width, height), bytes(rng.getrandbits(8) for _ in range(width * height * 3)))
    else:
        image = Image.new("RGB", (width, height), (30, 120, 200))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def encoded(fmt: str, size: tuple[int, int] = (64, 48)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (250, 200, 10)).save(out, fmt)
    return out.getvalue()


def photo(width: int, height: int) -> bytes:
    """A JPEG that compresses like a photograph: smooth gradients with grain over them (made with Pillow's own
    operations, so a 12-megapixel one takes a fraction of a second)."""
    across = Image.linear_gradient("L").rotate(90).resize((width, height))
    down = Image.linear_gradient("L").resize((width, height))
    grain = Image.effect_noise((width, height), 40)
    red = Image.blend(across, grain, 0.25)
    green = Image.blend(down, grain, 0.25)
    blue = Image.blend(Image.blend(across, down, 0.5), grain, 0.35)
    out = io.BytesIO()
    Image.merge("RGB", (red, green, blue)).save(out, "JPEG", quality=92)
    return out.getvalue()


def make_pdf(pages: list[str]) -> bytes:
    """A real PDF whose pages hold the given texts (written by hand: pypdf reads, it does not lay out text)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    font = 3 + 2 * len(pages)
    for index, text in enumerate(pages):
        content = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content.decode()}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
