"""An image drawn in text cells: each cell an upper half block (▀) whose foreground is one pixel and whose
background is the pixel below, so a cell — about twice as tall as it is wide — holds two square pixels.

Every terminal with 24-bit colour shows it, inside tmux and over SSH, in `textual serve`'s browser page and in
an SVG snapshot. kitty and Ghostty are sent the image itself instead (`kitty`, chosen by `tui/platform/graphics`).
"""

from __future__ import annotations

import io
from collections import OrderedDict

from textual.color import Color
from textual.content import Content, Span
from textual.style import Style

__all__ = ["cached_cells", "cell_size", "image_cells"]

_cache: OrderedDict[tuple[str, int, int], Content] = OrderedDict()
_CACHE_SIZE = 32


def cell_size(width: int, height: int, max_columns: int, max_rows: int) -> tuple[int, int]:
    """Columns and rows an image of `width`×`height` pixels takes, aspect kept, within the bounds."""
    if width <= 0 or height <= 0:
        return 0, 0
    scale = min(max_columns / width, (max_rows * 2) / height)  # a small image is drawn larger: one pixel is nothing
    columns = max(1, min(max_columns, round(width * scale)))
    rows = max(1, min(max_rows, round(height * scale / 2)))
    return columns, rows


def cached_cells(key: str, max_columns: int, max_rows: int) -> Content | None:
    """The picture if it was drawn already at this size (the view shows it at once, without a thread)."""
    return _cache.get((key, max_columns, max_rows))


def image_cells(key: str, data: bytes, max_columns: int, max_rows: int) -> Content:
    """The image as lines of half blocks, at most `max_columns` × `max_rows` cells (cached under `key`, the
    content's hash). A picture that will not decode is a one-line note (it was checked when attached; a stored
    one may have been damaged since)."""
    cache_key = (key, max_columns, max_rows)
    found = _cache.get(cache_key)
    if found is not None:
        _cache.move_to_end(cache_key)
        return found
    content = _draw(data, max_columns, max_rows)
    _cache[cache_key] = content
    while len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return content


def _draw(data: bytes, max_columns: int, max_rows: int) -> Content:
    from PIL import Image, ImageOps

    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.draft("RGB", (max_columns * 2, max_rows * 4))  # a JPEG decodes at a fraction of its size
            image = ImageOps.exif_transpose(opened) or opened
            columns, rows = cell_size(image.width, image.height, max_columns, max_rows)
            if image.mode not in ("RGB", "RGBA"):
                image = image.convert("RGBA")
            # a picture drawn larger than it is keeps its pixels sharp; a smaller one is averaged, after a fast
            # reduction by whole factors (reducing_gap): a 4K screenshot is not filtered at full size
            larger = columns > image.width
            resample = Image.Resampling.NEAREST if larger else Image.Resampling.LANCZOS
            rgba = image.resize((columns, rows * 2), resample, reducing_gap=None if larger else 2.0).convert("RGBA")
    except (OSError, ValueError, SyntaxError) as error:
        return Content(f"(the picture cannot be drawn: {type(error).__name__})")
    flat = Image.new("RGBA", rgba.size, (0, 0, 0, 255))
    flat.alpha_composite(rgba)
    pixels = flat.convert("RGB").load()
    assert pixels is not None
    text = "\n".join("▀" * columns for _ in range(rows))
    spans: list[Span] = []
    for row in range(rows):
        start = row * (columns + 1)
        for column in range(columns):
            top = pixels[column, row * 2]
            bottom = pixels[column, row * 2 + 1]
            assert isinstance(top, tuple) and isinstance(bottom, tuple)
            style = Style(foreground=Color(top[0], top[1], top[2]), background=Color(bottom[0], bottom[1], bottom[2]))
            spans.append(Span(start + column, start + column + 1, style))
    return Content(text, spans)
