"""A sixel reader for the tests: what a terminal would paint from a DCS sixel string, pixel by pixel."""

from __future__ import annotations

import re

HEADER = re.compile(r'\x1bP([0-9;]*)q"1;1;(\d+);(\d+)')
COLOUR = re.compile(r"#(\d+)(?:;2;(\d+);(\d+);(\d+))?")
REPEAT = re.compile(r"!(\d+)(.)")


def read_sixel(data: str) -> tuple[int, int, dict[tuple[int, int], tuple[int, int, int]]]:
    """(width, height, {(x, y): (red %, green %, blue %)}) of every pixel `data` paints."""
    header = HEADER.match(data)
    assert header is not None and data.endswith("\x1b\\"), data[:40]
    width, height = int(header.group(2)), int(header.group(3))
    body = data[header.end() : -2]
    colours: dict[int, tuple[int, int, int]] = {}
    painted: dict[tuple[int, int], tuple[int, int, int]] = {}
    x = y = 0
    current = -1
    at = 0
    while at < len(body):
        char = body[at]
        if char == "#":
            found = COLOUR.match(body, at)
            assert found is not None
            if found.group(2) is not None:
                colours[int(found.group(1))] = (int(found.group(2)), int(found.group(3)), int(found.group(4)))
            else:
                current = int(found.group(1))
            at = found.end()
            continue
        if char in "$-":
            x, y = 0, y + (6 if char == "-" else 0)
            at += 1
            continue
        count = 1
        if char == "!":
            found = REPEAT.match(body, at)
            assert found is not None
            count, char, at = int(found.group(1)), found.group(2), found.end()
        else:
            at += 1
        bits = ord(char) - 63
        assert 0 <= bits < 64, repr(char)
        for _ in range(count):
            for bit in range(6):
                if bits >> bit & 1:
                    painted[(x, y + bit)] = colours[current]
            x += 1
    return width, height, painted
