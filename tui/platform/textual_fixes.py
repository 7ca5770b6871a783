"""Two fixes to Textual that a long session needs (issue 14 §1): removed widgets must be freed.

`StylesCache.get_inner_outer` (Textual 8.2) is an instance method under `functools.lru_cache(1024)`, so every
cache key holds the `StylesCache` it was called on — and with it every line that widget ever rendered. Each
removed message view (its Markdown blocks, its header, its scrollbars) then stayed in memory until 1,024 newer
ones pushed it out, though the message list had long removed the views (Textualize/textual#6665). The colour
pair is now cached by the colours alone.
Upstream report: docs/upstream/styles-cache-leak.md

The same kind of leak, smaller: a widget that binds to another's reactive (`data_bind`, as every `FooterKey`
does to its `Footer`'s `compact`) adds a watcher to the other's list, and Textual drops the watchers of removed
widgets only when the watched value changes — `compact` never does, so each footer rebuild (one per reply) kept
its removed keys forever (Textualize/textual#6666). New watchers now prune the list of closed ones first.
Upstream report: docs/upstream/watchers-of-removed-widgets.md

`apply()` makes both fixes, each only on a Textual it was checked on (`compat`); it is idempotent.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from textual.color import Color
from textual.style import Style

from visindigo.tui.platform import compat

UPSTREAM = ("docs/upstream/styles-cache-leak.md", "docs/upstream/watchers-of-removed-widgets.md")

_applied: set[str] = set()


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """Inner and outer background styles of a widget over `base_background` (as Textual's own method)."""
    return Style(background=base_background + background), Style(background=base_background)


def apply(app: object | None = None) -> None:
    """Cache StylesCache's colour pair by the colours, and prune closed watchers (`app`: checked too, if given)."""
    if "styles_cache" not in _applied and compat.enabled("styles_cache"):
        compat.replace(compat.STYLES_CACHE, "get_inner_outer", staticmethod(_inner_outer)).cache_clear()
        _applied.add("styles_cache")
    if "watchers" not in _applied and compat.enabled("watchers", app):
        compat.replace("textual.dom", "_watch", _pruning(compat.original("textual.dom", "_watch")))
        _applied.add("watchers")


def _pruning(textual_watch: Any) -> Any:
    def watch_pruning_closed(node: Any, obj: Any, attribute_name: str, callback: Any, *, init: bool = True) -> None:
        watchers = getattr(obj, "__watchers", None)
        entries = watchers.get(attribute_name) if isinstance(watchers, dict) else None
        if entries:
            entries[:] = [(reactable, call) for reactable, call in entries if not reactable._closing]
        textual_watch(node, obj, attribute_name, callback, init=init)

    return watch_pruning_closed
