"""The headers of a request to a provider: the wire format's own (the key, a version), then the user's.

Apart from `http.py` so that it imports neither httpx nor asyncio: `visindigo ask` makes its first request's
headers with this code before those are loaded (`engine.providers.early`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..env_refs import UnsetVariable
from ..secrets import key_problem
from .request import Endpoint, ProviderError

__all__ = ["extra_headers", "request_headers"]


def request_headers(
    provider: Endpoint, own: Mapping[str, str], accept: str, fail: Callable[[str], ProviderError]
) -> dict[str, str]:
    """The request's headers; a key or header value that HTTP cannot carry is `fail(words)` raised, naming it."""
    problem = provider.key_problem()
    if problem is not None:
        raise fail(problem)
    headers = {"Accept": accept, **own}
    for name, value in extra_headers(provider).items():
        if key_problem(value) is not None:
            raise fail(f"the header {name!r} holds a line break or another control character; it cannot be sent")
        headers[name] = value
    return headers


def extra_headers(provider: Endpoint) -> dict[str, str]:
    """The provider's configured headers with `${VAR}` references expanded; a missing variable is a `ProviderError`."""
    try:
        return provider.request_headers()
    except UnsetVariable as missing:
        raise ProviderError(f"{provider.name}: {missing}") from None
