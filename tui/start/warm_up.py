"""What the first reply needs, loaded in a thread just after the first frame (issue 14 §3).

Start-up defers the run loop, the provider adapters, httpx, jsonschema and the Markdown machinery until they
are needed (tests/test_startup_deferrals.py keeps it so). Left at that, the first reply paid for all of them
between Enter and its first token, several times what a later reply waits (`bench/tui_stream.py` measures
both). Loading them while the user is still reading the first frame keeps both: a quick first frame and a
quick first reply.

Everything here is an import or a cache filled once; a failure only means the first reply loads it itself.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable

log = logging.getLogger(__name__)

#: Modules every reply needs, in the order a reply needs them.
REPLY_MODULES = (
    "visindigo.engine.events",
    "visindigo.tui.workbench.driving",
    "visindigo.engine.run_loop",
    "visindigo.engine.providers.registry",
    "visindigo.engine.providers.http",
    "visindigo.engine.providers.sse",
    "httpcore",
    "h11",
    "anyio._backends._asyncio",
    "jsonschema",
    "markdown_it",
    "textual.highlight",
    "pygments.lexers.python",
    # the view a reply streams into (its Markdown, the growing tail, tool blocks)
    "visindigo.tui.chat.message_view",
)

#: A character outside Rich's cache of cell widths, whose width is looked up in the table (which loads it).
WIDE_CHARACTER = "\u9f98"

#: The adapter module of each provider kind.
ADAPTER_MODULES = {
    "openai": "visindigo.engine.providers.openai",
    "anthropic": "visindigo.engine.providers.anthropic",
}


def modules_for(kinds: Iterable[str]) -> list[str]:
    """The modules to load for providers of `kinds`: the adapters first, the shared reply machinery after."""
    adapters = [ADAPTER_MODULES[kind] for kind in dict.fromkeys(kinds) if kind in ADAPTER_MODULES]
    return [*adapters, *REPLY_MODULES]


def warm_up(kinds: Iterable[str] = ("openai",)) -> list[str]:
    """Import the first reply's modules and build the shared SSL context; returns what was loaded.

    Runs in a worker thread: imports are thread-safe, and the main thread is idle after the first frame.
    """
    loaded = []
    for name in modules_for(kinds):
        try:
            importlib.import_module(name)
        except Exception:  # an optional piece missing: the reply that needs it reports it
            log.debug("warm-up: %s did not load", name, exc_info=True)
            continue
        loaded.append(name)
    try:  # Textual's Markdown widget (its module loads when the name is first asked for)
        from textual.widgets import Markdown  # noqa: F401
    except Exception:
        log.debug("warm-up: Textual's Markdown did not load", exc_info=True)
    try:  # Rich's table of character widths, read on the first text wider than ASCII (the first reply's, often)
        from rich.cells import get_character_cell_size

        get_character_cell_size(WIDE_CHARACTER)
    except Exception:
        log.debug("warm-up: the cell width table did not load", exc_info=True)
    try:
        from visindigo.engine.providers._httpx import shared_ssl_context

        shared_ssl_context()
    except Exception:
        log.debug("warm-up: the SSL context could not be built", exc_info=True)
    return loaded
