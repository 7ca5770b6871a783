"""A fix to Textual that a long session needs (issue 14 §1): removed widgets' render caches must be freed.

`textual._styles_cache.StylesCache.get_inner_outer` (Textual 8.2) is an instance method under
`functools.lru_cache(1024)` without `@classmethod`, so every cache key holds the `StylesCache` it was called on
— and with it every line that widget ever rendered. Each removed message view (its Markdown blocks, its header,
its scrollbars) then stayed in memory until 1,024 newer ones pushed it out: +0.8 MB per reply in a long dialog,
~200 MB after 100 replies, though the message list had long removed the views (Textualize/textual#6665).

The same kind of leak, smaller: a widget that binds to another's reactive (`data_bind`, as every `FooterKey`
does to its `Footer`'s `compact`) adds a watcher to the other's list, and Textual drops the watchers of removed
widgets only when the watched value changes — `compact` never does, so each footer rebuild (one per reply) kept
its eight removed keys forever. New watchers now prune the list of closed ones first.

`apply()` makes both fixes; it is idempotent, and leaves alone a Textual whose code no longer has the fault.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import textual.dom
from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style

_applied = False


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """Inner and outer background styles of a widget over `base_background` (as Textual's own method)."""
    return Style(background=base_background + background), Style(background=base_background)


def apply() -> None:
    """Cache StylesCache's colour pair by the colours, not by the (removed) widget's cache object."""
    global _applied
    if _applied:
        return
    current = StylesCache.__dict__.get("get_inner_outer")
    if callable(getattr(current, "cache_clear", None)):  # the leaky lru_cache on an instance method
        current.cache_clear()  # type: ignore[union-attr]
        StylesCache.get_inner_outer = staticmethod(_inner_outer)  # type: ignore[method-assign,assignment]
    original_watch = textual.dom._watch

    def watch_pruning_closed(node: Any, obj: Any, attribute_name: str, callback: Any, *, init: bool = True) -> None:
        watchers = getattr(obj, "__watchers", None)
        entries = watchers.get(attribute_name) if isinstance(watchers, dict) else None
        if entries:
            entries[:] = [(reactable, call) for reactable, call in entries if not reactable._closing]
        original_watch(node, obj, attribute_name, callback, init=init)

    textual.dom._watch = watch_pruning_closed  # type: ignore[assignment]
    _applied = True


apply()
