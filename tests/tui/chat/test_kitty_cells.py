"""Issue 26 item 18: the bytes and cells of kitty's graphics protocol, checked against its specification
(https://sw.kovidgoyal.net/kitty/graphics-protocol/, "Remote client" and "Unicode placeholders", read at kitty
commit 9475a58) — and the placeholder cells kept whole by the output stage's cell diffing."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import unicodedata

import pyte
import pytest
from PIL import Image
from rich.cells import get_character_cell_size
from rich.segment import Segment
from textual._compositor import LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from visindigo.tui.chat.attachments import kitty
from visindigo.tui.platform.output_stage import OutputStage

APC = re.compile(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")


def commands(data: str) -> list[tuple[dict[str, str], str]]:
    return [(dict(pair.split("=", 1) for pair in keys.split(",")), payload) for keys, payload in APC.findall(data)]


def test_the_diacritics_are_kittys_list() -> None:
    marks = kitty.DIACRITICS
    assert len(marks) == kitty.MAX_CELLS == 297
    # the spec's own examples: U+0305 is 0, U+030D is 1, U+030E is 2
    assert [f"{ord(mark):04X}" for mark in marks[:3]] == ["0305", "030D", "030E"]
    assert f"{ord(marks[-1]):04X}" == "1D244"
    # the whole list, as gen/rowcolumn-diacritics.txt's first fields joined by spaces, hashed (kitty 9475a58)
    listed = " ".join(f"{ord(mark):04X}" for mark in marks).encode()
    assert hashlib.sha256(listed).hexdigest() == "c3dd25224e1c644f2840932c2e136a30bcf3d2e19fba60c1d3b210559106ad54"
    assert [ord(m) for m in marks] == sorted({ord(m) for m in marks})  # in order, none twice
    # the rule the list was made by (gen/rowcolumn-diacritics.txt): combining class 230, no decomposition
    for mark in marks:
        assert unicodedata.category(mark) == "Mn" and unicodedata.combining(mark) == 230, hex(ord(mark))
        assert unicodedata.bidirectional(mark) == "NSM" and unicodedata.decomposition(mark) == "", hex(ord(mark))
        assert get_character_cell_size(mark) == 0  # Rich (and so the output stage) joins it to its cell
    assert get_character_cell_size(kitty.PLACEHOLDER) == 1


def test_placeholders_are_the_specs_example_with_the_id_in_24_bit_colour() -> None:
    # the spec prints a 2×2 placeholder for image 42 as these two lines (there in 256-colour mode, 38;5;42)
    cells = kitty.placeholder_cells(42, 2, 2)
    assert cells.plain.split("\n") == [
        "\U0010eeee\u0305\u0305\U0010eeee\u0305\u030d",
        "\U0010eeee\u030d\u0305\U0010eeee\u030d\u030d",
    ]
    assert [line.cell_length for line in cells.split("\n")] == [2, 2]  # one cell each, marks and all
    (span,) = cells.spans
    assert (span.start, span.end) == (0, len(cells.plain))
    segments = cells.render_segments()
    colours = {segment.style.color.triplet for segment in segments if segment.style and segment.style.color}
    assert [tuple(c) for c in colours if c] == [(0, 0, 42)]
    big = kitty.placeholder_cells(0x12AB7F, 3, 1)
    colour = big.render_segments()[0].style.color  # type: ignore[union-attr]
    assert colour is not None and colour.triplet is not None and tuple(colour.triplet) == (0x12, 0xAB, 0x7F)


def test_a_large_upload_is_chunked_as_the_spec_says_and_decodes_to_the_file() -> None:
    data = os.urandom(10_000)  # base64: 13 336 bytes, four chunks
    sequence = kitty.transmit(77, data, 30, 9)
    found = commands(sequence)
    chunks, placement = found[:-1], found[-1]
    assert len(chunks) == 4
    first_keys = chunks[0][0]
    assert first_keys == {"a": "t", "f": "100", "i": "77", "q": "2", "m": "1"}  # a PNG, quiet, more to come
    for keys, _ in chunks[1:]:
        assert set(keys) == {"m", "q"}  # "subsequent chunks must have only the m and optionally q keys"
    assert [keys["m"] for keys, _ in chunks] == ["1", "1", "1", "0"]
    assert all(len(payload) <= 4096 and len(payload) % 4 == 0 for _, payload in chunks[:-1])
    assert base64.standard_b64decode("".join(payload for _, payload in chunks)) == data
    assert placement == ({"a": "p", "U": "1", "i": "77", "c": "30", "r": "9", "q": "2"}, "")
    assert sequence == "".join(f"\x1b_G{k};{p}\x1b\\" for k, p in APC.findall(sequence)[:-1]) + (
        "\x1b_Ga=p,U=1,i=77,c=30,r=9,q=2\x1b\\"
    )  # nothing between the commands


def test_delete_frees_the_image_and_bad_ids_or_sizes_are_refused() -> None:
    assert kitty.delete(5) == "\x1b_Ga=d,d=I,i=5,q=2\x1b\\"
    for image_id, columns, rows in ((0, 1, 1), (0x1000000, 1, 1), (1, 0, 1), (1, 1, 298)):
        with pytest.raises(ValueError):
            kitty.placeholder_cells(image_id, columns, rows)


def test_the_png_is_scaled_to_the_cells_and_never_enlarged() -> None:
    photo = Image.new("RGB", (4000, 1000), (10, 200, 30))
    out = io.BytesIO()
    photo.save(out, "JPEG")
    png, columns, rows = kitty.scaled_png("k1", out.getvalue(), 24, 6)
    assert (columns, rows) == (24, 3)  # the same cells as its half-block picture
    scaled = Image.open(io.BytesIO(png))
    assert scaled.format == "PNG" and scaled.size == (24 * 16, 96)
    wide = io.BytesIO()
    Image.new("RGB", (3000, 2000), (90, 20, 200)).save(wide, "JPEG")
    big, columns, rows = kitty.scaled_png("k4", wide.getvalue(), 116, 37)  # full size at 120×40
    assert (columns, rows) == (111, 37)  # 1776×1184 at 16×32 a cell: over the cap
    width, height = Image.open(io.BytesIO(big)).size
    assert width * height <= kitty.MAX_PIXELS and width * height > 0.95 * kitty.MAX_PIXELS  # a megapixel at most
    small = io.BytesIO()
    Image.new("RGB", (20, 10)).save(small, "PNG")
    png, _, _ = kitty.scaled_png("k2", small.getvalue(), 24, 6)
    assert Image.open(io.BytesIO(png)).size == (20, 10)
    with pytest.raises((OSError, ValueError)):
        kitty.scaled_png("k3", b"\x89PNG\r\n\x1a\nbroken", 24, 6)


def _apply(stage: OutputStage, cells: list[Strip], x: int, y: int) -> None:
    stage.apply(LayoutUpdate([[strip] for strip in cells], Region(x, y, cells[0].cell_length, len(cells))))


def test_the_output_stage_keeps_the_marks_and_the_colour_and_resends_a_changed_cell_whole() -> None:
    """The stage diffs cells: each placeholder must reach the terminal with both marks and its 24-bit colour,
    also when only part of the picture is sent again."""
    stage = OutputStage(12, 4)
    image_id = 0x0A0B0C
    content = kitty.placeholder_cells(image_id, 3, 2)
    strips = [Strip(line.render_segments()) for line in content.split("\n")]
    _apply(stage, strips, 2, 1)
    first = stage.frame()
    assert "\x1b[0;38;2;10;11;12m" in first  # the id, unchanged by the stage
    screen = pyte.Screen(12, 4)
    stream = pyte.Stream(screen)
    stream.feed(first)
    marks = kitty.DIACRITICS
    for row in range(2):
        for column in range(3):
            cell = screen.buffer[1 + row][2 + column]
            assert cell.data == kitty.PLACEHOLDER + marks[row] + marks[column]
            assert cell.fg == "0a0b0c"
    # text drawn over the middle of the picture, then the picture again: the stage re-sends only the cell that
    # changed, and that cell carries its marks (no mark may be inferred from a neighbour that was not re-sent)
    _apply(stage, [Strip([Segment("X")])], 3, 2)
    stream.feed(stage.frame())
    assert screen.buffer[2][3].data == "X"
    _apply(stage, strips, 2, 1)
    again = stage.frame()
    assert again.count(kitty.PLACEHOLDER) == 1
    assert kitty.PLACEHOLDER + marks[1] + marks[1] in again
    stream.feed(again)
    assert screen.buffer[2][3].data == kitty.PLACEHOLDER + marks[1] + marks[1] and screen.buffer[2][3].fg == "0a0b0c"
