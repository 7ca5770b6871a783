"""Issue 26: the bytes of a picture painted by the terminal at the cursor — sixel (read back pixel by pixel as a
terminal would) and iTerm2's inline image."""

from __future__ import annotations

import base64
import io
import os
import re

import pytest
from PIL import Image

from tests.tui.chat.sixel_reader import read_sixel
from tests.tui.main.test_attach_snapshots import quadrants
from visindigo.tui.chat.attachments import pixels


def percent(colour: tuple[int, int, int]) -> tuple[int, int, int]:
    red, green, blue = colour
    return red * 100 // 255, green * 100 // 255, blue * 100 // 255


def test_a_sixel_image_paints_every_pixel_in_its_colour() -> None:
    image = Image.open(io.BytesIO(quadrants())).convert("RGB")
    width, height, painted = read_sixel(pixels.sixel(image))
    assert (width, height) == (64, 32)
    assert len(painted) == 64 * 32  # every pixel, none outside the image
    for (x, y), colour in painted.items():
        assert colour == percent(image.getpixel((x, y))), (x, y)


def test_runs_are_compressed_and_a_photo_keeps_at_most_256_colours() -> None:
    flat = Image.new("RGB", (300, 12), (10, 200, 30))
    data = pixels.sixel(flat)
    assert "!300~" in data and len(data) < 80  # two bands of one colour, a run each
    noise = Image.frombytes("RGB", (120, 60), os.urandom(120 * 60 * 3))
    data = pixels.sixel(noise)
    registers = {int(n) for n in re.findall(r"#(\d+);2;", data)}
    assert 0 < len(registers) <= pixels.SIXEL_COLOURS
    width, height, painted = read_sixel(data)
    assert (width, height) == (120, 60) and len(painted) == 120 * 60


@pytest.mark.parametrize(
    ("size", "box", "fitted"),
    [
        ((64, 32), (800, 600), (800, 402)),  # a small image fills the box (as kitty and iTerm2 enlarge it)
        ((4000, 3000), (900, 540), (720, 540)),
        ((1000, 10), (500, 500), (500, 5)),  # one band: its height as it is
        ((3, 3), (1, 1), (1, 1)),
        ((640, 400), (190, 120), (190, 120)),  # 119 rows: all 120 of the box (no strip of half blocks under it)
        ((640, 400), (190, 125), (190, 120)),
        ((640, 400), (190, 118), (189, 114)),  # no room for 120: down
    ],
)
def test_the_fitted_size_keeps_the_aspect_and_whole_bands(
    size: tuple[int, int], box: tuple[int, int], fitted: tuple[int, int]
) -> None:
    assert pixels.fit(*size, *box) == fitted


def test_a_picture_for_sixel_is_scaled_into_its_box_and_xterms_limit() -> None:
    image = pixels.sixel_image(quadrants(), 1600, 1200)
    assert image.mode == "RGB" and image.size == (1000, 504)  # 1000 wide at most; 504 = 84 bands
    with pytest.raises((OSError, ValueError)):
        pixels.sixel_image(b"\x89PNG\r\n\x1a\nbroken", 100, 100)


def test_an_iterm_inline_image_carries_the_png_and_its_cells() -> None:
    png = quadrants()
    data = pixels.iterm_inline(png, 30, 8)
    found = re.fullmatch(r"\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]*)\x07", data)
    assert found is not None
    keys = dict(pair.split("=") for pair in found.group(1).split(";"))
    assert keys == {
        "inline": "1",
        "size": str(len(png)),
        "width": "30",
        "height": "8",
        "preserveAspectRatio": "1",
        "doNotMoveCursor": "1",
    }
    assert base64.standard_b64decode(found.group(2)) == png


def payload(inline: str) -> bytes:
    """The file an iTerm2 inline image carries."""
    found = re.search(r":([A-Za-z0-9+/=]*)\x07", inline)
    assert found is not None
    return base64.standard_b64decode(found.group(1))


def test_an_iterm_picture_of_a_photograph_is_a_jpeg_of_the_scaled_size_and_of_a_png_a_png() -> None:
    from tests.engine.attachments.files import photo
    from visindigo.tui.chat.attachments import kitty

    shot = photo(1600, 1200)
    made = pixels.picture("iterm", "photo-for-iterm", shot, 40, 15, (10, 20))
    sent = payload(made)
    png, _, _ = kitty.scaled_png("photo-for-iterm", shot, 40, 15)
    with Image.open(io.BytesIO(sent)) as jpeg, Image.open(io.BytesIO(png)) as scaled:
        assert (jpeg.format, jpeg.size) == ("JPEG", scaled.size)
    assert len(sent) * 4 < len(png)  # a photograph's JPEG: well under the lossless PNG
    made = pixels.picture("iterm", "quadrants-for-iterm", quadrants(), 40, 15, (10, 20))
    sent = payload(made)
    assert sent == kitty.scaled_png("quadrants-for-iterm", quadrants(), 40, 15)[0]  # a PNG stays a PNG
