"""The WCAG contrast of every built-in theme: each theme's lowest pair, and with --all every pair below 7:1.

Also how far apart each theme's success and error colours stay (CIELAB ΔE) with normal vision and simulated
protanopia, deuteranopia and tritanopia (themes/vision.py).

The pairs are those the app paints (themes/contrast.py: message text, dim hints and placeholders on the three
backgrounds, the status line, selections and cursors, footer keys, headings, links, outlines, the scrollbar);
text needs 4.5:1 and outlines and marks 3:1 (WCAG 2 AA). The ANSI theme is measured on xterm's palette.

    .venv/bin/python bench/theme_contrast.py [--all]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from visindigo.themes import BUILTIN_THEMES
from visindigo.themes.contrast import measure_theme
from visindigo.themes.vision import good_and_bad_apart


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="every pair under 7:1, not only the lowest")
    args = parser.parse_args()
    for theme in BUILTIN_THEMES.values():
        measured = measure_theme(theme)
        below = [m for m in measured if m.ratio < m.pair.minimum]
        lowest_text = min((m for m in measured if m.pair.minimum > 3), key=lambda m: m.ratio)
        lowest_mark = min((m for m in measured if m.pair.minimum <= 3), key=lambda m: m.ratio)
        print(f"{theme.name}: {len(measured)} pairs, {len(below)} below their minimum")
        print(f"  lowest text: {lowest_text.describe()}")
        print(f"  lowest mark: {lowest_mark.describe()}")
        apart = ", ".join(f"{name} {value:.0f}" for name, value in good_and_bad_apart(theme).items())
        print(f"  success/error ΔE: {apart}")
        if args.all:
            for m in measured:
                if m.ratio < 7:
                    print(f"    {m.describe()}  (needs {m.pair.minimum}:1)")


if __name__ == "__main__":
    main()
