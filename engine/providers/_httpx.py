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
import os
import ssl
import sys

if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx as httpx

__all__ = ["httpx", "shared_ssl_context", "ssl_context_for"]


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """The certificate store every provider's client verifies against, loaded once per process.

    httpx loads certifi's bundle into a new SSL context for each client it makes (40–80 ms); the first reply
    waited for that, and every provider paid it again. The context is built the way httpx builds its default
    one (SSL_CERT_FILE / SSL_CERT_DIR honoured), and the app builds it in the background after its first frame.
    """
    return httpx.create_ssl_context(trust_env=True)


#: The environment variables through which httpx (trust_env) may send a plain-http request over a TLS proxy.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def ssl_context_for(base_url: str) -> ssl.SSLContext:
    """The context a provider's client verifies TLS with: the shared certificate store for an https provider.

    A provider on plain http (a local llama.cpp, Ollama, vLLM) never speaks TLS, and loading the bundle for it
    cost `visindigo ask` 40–80 ms before its question left (bench/ask_start.py). It gets a context that
    verifies as strictly (certificates required, host names checked) against an empty store: nothing is
    loaded, and anything that would speak TLS through it fails closed rather than unverified. With a proxy in
    the environment (which may itself be https) it gets the shared store as before.
    """
    scheme = base_url.strip().partition(":")[0].lower()  # no parsing: a malformed address fails where it is used
    if scheme != "http" or any(
        os.environ.get(name) or os.environ.get(name.upper()) for name in PROXY_VARIABLES
    ):
        return shared_ssl_context()
    return _trusting_nothing()


@functools.cache
def _trusting_nothing() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname, no certificate trusted
