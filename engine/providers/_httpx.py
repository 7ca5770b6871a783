"""httpx, imported without its command-line interface.

`httpx/__init__.py` imports `httpx._main` (its CLI, which loads rich, pygments and click) whenever those are
installed — and rich always is here, because textual needs it. That made every engine module that speaks HTTP
load rich (breaking the rule that the engine never does) and cost about 100 ms at startup. httpx treats a
failed import of `_main` as "CLI extras not installed" and carries on, so the adapters import httpx through
this module, which marks `httpx._main` as absent before httpx is first imported. Nothing in the app uses the
httpx command line.
"""

from __future__ import annotations

import sys

if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx as httpx

__all__ = ["httpx"]
