"""Each built-in theme's lowest contrast pair before the contrast work and now (issue 28's closing figure).

"Before" is themes/builtin.py as it stood in the commit before themes/contrast.py was added (found in the git
history, or given with --before REV); "now" is the checkout's. Both are measured with the function the contrast
test uses (`visindigo.themes.contrast.measure_theme`, the same pairs), so the figures differ only by the theme
colours. A theme that did not exist then (the colour-blind one) says so. Needs the git history (a clone, not an
sdist).

    .venv/bin/python bench/theme_contrast_history.py [--before REV]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual.theme import Theme

from visindigo.themes import BUILTIN_THEMES
from visindigo.themes.contrast import Measured, measure_theme

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout


def before_contrast_work() -> str:
    """The commit before the one that added themes/contrast.py."""
    added = _git("log", "--diff-filter=A", "--format=%H", "--", "themes/contrast.py").split()
    if not added:
        raise SystemExit("themes/contrast.py has no history here")
    return added[-1] + "^"


def themes_at(rev: str) -> dict[str, Theme]:
    """The `Theme` objects of themes/builtin.py at `rev` (it imports only textual.theme)."""
    namespace: dict[str, Any] = {"__name__": "builtin_then"}
    exec(compile(_git("show", f"{rev}:themes/builtin.py"), f"{rev}:themes/builtin.py", "exec"), namespace)
    return {value.name: value for value in namespace.values() if isinstance(value, Theme)}


def lowest(theme: Theme) -> tuple[Measured, Measured, int]:
    """The lowest text pair, the lowest outline or mark, and how many pairs are below their minimum."""
    measured = measure_theme(theme)
    text = min((m for m in measured if m.pair.minimum > 3), key=lambda m: m.ratio)
    mark = min((m for m in measured if m.pair.minimum <= 3), key=lambda m: m.ratio)
    return text, mark, sum(m.ratio < m.pair.minimum for m in measured)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="the revision whose themes are 'before' (default: before contrast.py)")
    args = parser.parse_args()
    rev = args.before or before_contrast_work()
    then = themes_at(rev)
    print(f"before = themes/builtin.py at {_git('rev-parse', '--short', rev).strip()}; now = this checkout")
    for name, theme in BUILTIN_THEMES.items():
        print(f"{name}:")
        for when, subject in (("before", then.get(name)), ("now", theme)):
            if subject is None:
                print(f"  {when:6}  (not a theme then)")
                continue
            text, mark, below = lowest(subject)
            print(f"  {when:6}  text: {text.describe()}; mark: {mark.describe()}; {below} pairs below minimum")


if __name__ == "__main__":
    main()
