"""httpx, imported without its command-line interface.

`httpx/__init__.py` imports `httpx._main` (its CLI, which loads rich, pygments and click) whenever those are
installed — and rich always is here, because textual needs it. That made every engine module that speaks HTTP
load rich (breaking the rule that the engine never does) and cost about 100 ms at startup. httpx treats a
failed import of `_main` as "CLI extras not installed" and carries on, so the adapters import httpx through
this module, which marks `httpx._main` as absent before httpx is first imported. Nothing in the app uses the
httpx command line.
"""

from __future__ import annotations

import functools
import ssl
import sys

if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx as httpx

__all__ = ["httpx", "shared_ssl_context"]


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """The certificate store every provider's client verifies against, loaded once per process.

    httpx loads certifi's bundle into a new SSL context for each client it makes (40–80 ms); the first reply
    waited for that, and every provider paid it again. The context is built the way httpx builds its default
    one (SSL_CERT_FILE / SSL_CERT_DIR honoured), and the app builds it in the background after its first frame.
    """
    return httpx.create_ssl_context(trust_env=True)
