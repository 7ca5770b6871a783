"""What both HTTP adapters share: the client, opening a stream with retries, and error messages a user can act on.

One `httpx.AsyncClient` per provider, made on first use and closed by `Provider.aclose()` (which
`Center.aclose()` calls). A stream is opened with `client.send(..., stream=True)`; the status is checked
before any SSE parsing (httpx-sse refuses a JSON error body, see protocols.md §0). Only what may pass later is
retried, a bounded number of times with exponential backoff that honours `Retry-After`: 429, 502/503/504,
Anthropic's 529, and a 500 whose body is not about the request. A 4xx, or a 5xx whose body is a validation
error (llama.cpp's server answers a request it cannot parse with HTTP 500), would fail again the same way, so
it is shown at once with the server's own words. A kept-alive connection the server had already closed fails
before any byte of the response; that is retried once at once on a fresh connection, as the official SDKs do.
Every message is passed through `redact`, so the API key never reaches the user.
Redirects are not followed: httpx keeps custom headers such as Anthropic's `x-api-key` on a redirect to another
host, and turns a redirected POST into a GET; the user is told the new address instead.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import socket
import time
from collections.abc import Mapping
from typing import Any

from ..applog import http_event_hooks
from ..sanitize import clean, cut
from ._httpx import httpx, ssl_context_for
from .base import Endpoint, ProviderError, redact, retry_delay, retry_limit
from .early import EarlyRequest
from .early import take as take_early
from .headers import extra_headers, request_headers

__all__ = [
    "HTTPAdapter",
    "HTTPTransport",
    "error_from_body",
    "extra_headers",
    "is_permanent_error",
    "retry_delay",
    "retry_limit",
    "transport_error",
]

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
#: Words of an error body that say the request itself is wrong: sending it again cannot help.
_REQUEST_WORDS = (
    "validation",
    "invalid",
    "field required",
    "extra inputs",
    "input should be",
    "not supported",
    "unsupported",
    "is not valid",
    "must be",
    "value_error",
    "type_error",
    "bad request",
)
#: Words that say the server is busy, whatever the status.
_BUSY_WORDS = ("overloaded", "rate limit", "try again", "temporarily", "capacity", "unavailable")
#: Failures of a request that received no byte of a response: a kept-alive connection closed by the server.
_STALE_CONNECTION_ERRORS = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
#: Retry-After values above this are not waited for: the user is told instead.
DEFAULT_MAX_RETRY_WAIT = 60.0


class HTTPTransport:
    """The provider's HTTP client and the retry policy, read from `provider.settings`:

    - `max_retries` (default 3): attempts after the first for 429 / 5xx / 529 before any byte of the answer (and
      for an error event inside the stream before any content, see the run loop);
    - `retry_base_delay` (default 0.5 s): the first backoff, doubled each attempt (with a little jitter);
    - `max_retry_wait` (default 60 s): a longer `Retry-After` fails at once with a message saying so.
    """

    def __init__(self, provider: Endpoint) -> None:
        self.provider = provider
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            provider = self.provider
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(
                    connect=provider.connect_timeout,
                    read=provider.read_timeout,
                    write=provider.connect_timeout,
                    pool=provider.connect_timeout,
                ),
                follow_redirects=False,
                event_hooks=http_event_hooks(),
                verify=ssl_context_for(provider.base_url),
            )
        return self._client

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def fail(self, message: str, **kwargs: Any) -> ProviderError:
        """A `ProviderError` with the provider's name in front and the key (and credential headers) removed."""
        text = f"{self.provider.name}: {message}"
        for secret in self.provider.secrets():
            text = redact(text, secret)
        # An error body is outside text: it enters the dialog (the message's meta) and every screen cleaned.
        return ProviderError(cut(clean(text), ERROR_LIMIT), **kwargs)

    async def get_json(self, url: str, headers: Mapping[str, str]) -> Any:
        """GET a JSON document (model lists); failures become `ProviderError`."""
        try:
            response = await self.client.get(url, headers=dict(headers))
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise self.fail(transport_error(error, self.provider)) from None
        if response.is_redirect:
            raise self._redirect_error(response, url)
        if response.status_code >= 400:
            raise self._http_error(response.status_code, response.text, response.headers, f"{url} answered")
        try:
            return response.json()
        except ValueError:
            raise self.fail(f"{url} did not answer with JSON (is the base URL right?)") from None

    async def open_stream(self, url: str, body: dict[str, Any], headers: Mapping[str, str]) -> httpx.Response:
        """POST `body` and return the open response once its status is a success.

        The caller must `await response.aclose()`. Retries what may pass later; raises `ProviderError`.
        """
        settings = self.provider.settings
        max_retries = retry_limit(settings)
        max_wait = _float_setting(settings, "max_retry_wait", DEFAULT_MAX_RETRY_WAIT)
        attempt = 0
        fresh_connection_tried = False
        early = take_early(url, dict(headers), body)  # `visindigo ask` may have sent this very request already
        while True:
            try:
                request = self.client.build_request("POST", url, json=body, headers=dict(headers))
                if early is not None:
                    adopted, early = early, None  # only the first attempt: a retry goes through the client
                    response = await self._adopt(adopted, request)
                else:
                    response = await self.client.send(request, stream=True)
            except _STALE_CONNECTION_ERRORS as error:
                if fresh_connection_tried:
                    raise self.fail(transport_error(error, self.provider)) from None
                fresh_connection_tried = True  # the pool drops the dead connection; the next send opens one
                continue
            except (httpx.HTTPError, httpx.InvalidURL) as error:
                raise self.fail(transport_error(error, self.provider)) from None
            if response.is_redirect:
                await response.aclose()
                raise self._redirect_error(response, url)
            if response.status_code < 400:
                return response
            try:
                raw = await response.aread()
            except httpx.HTTPError:
                raw = b""
            finally:
                await response.aclose()
            failure = self._http_error(response.status_code, raw.decode("utf-8", "replace"), response.headers)
            if not failure.retryable or attempt >= max_retries:
                raise failure
            wait = failure.retry_after if failure.retry_after is not None else retry_delay(settings, attempt)
            if wait > max_wait:
                raise self.fail(
                    f"{failure.message.split(': ', 1)[-1]} — the server asks to wait {wait:.0f} s before retrying; "
                    "try again later",
                    status=failure.status,
                    retryable=True,
                    retry_after=wait,
                )
            attempt += 1
            await asyncio.sleep(wait)

    async def _adopt(self, early: EarlyRequest, request: httpx.Request) -> httpx.Response:
        """The response to the request sent early, as `client.send(request, stream=True)` would return it (the
        client's event hooks called alike)."""
        from .early_response import response_to

        log.debug("the request was sent early (before asyncio was loaded): its answer is read from that connection")
        for hook in self.client.event_hooks["request"]:
            await hook(request)
        response = await response_to(early, request, self.provider.read_timeout)
        for hook in self.client.event_hooks["response"]:
            await hook(response)
        return response

    def _redirect_error(self, response: httpx.Response, url: str) -> ProviderError:
        """A redirect in words, with the base URL it points to when it keeps the request's path."""
        target = str(response.url.join(response.headers.get("location", "")))
        suffix = url[len(self.provider.base_url) :] if url.startswith(self.provider.base_url) else ""
        if suffix and target.endswith(suffix):
            advice = f"set the base URL to {target[: -len(suffix)]}"
        else:
            advice = "set the base URL to the new address"
        return self.fail(
            f"the server redirects to {target} (HTTP {response.status_code}); {advice}. Requests are not "
            "forwarded, so the API key goes only to the configured address",
            status=response.status_code,
        )

    def _http_error(self, status: int, text: str, headers: Mapping[str, str], words_first: str = "") -> ProviderError:
        """The failure in words: our hint with the server's own words after it, or (`words_first`, for a GET of
        the model list, where a proxy's "No connected db." says more than any hint) the server's words first."""
        server_message = error_from_body(text)
        permanent = is_permanent_error(status, server_message)
        hint = _hint(status, self.provider, permanent)
        detail = f"HTTP {status}" + (f": {server_message}" if server_message else "")
        retry_after = _retry_after(headers.get("retry-after"))
        return self.fail(
            f"{words_first} {detail} — {hint}" if words_first else f"{hint} ({detail})",
            status=status,
            retryable=not permanent,
            retry_after=retry_after,
        )


#: The longest error message kept from a server (its body may be a whole HTML page).
ERROR_LIMIT = 2000


class HTTPAdapter:
    """What the two HTTP adapters do alike: hold the provider and its transport, build the headers of a request
    (the wire format adds its own in `_own_headers`, the user's `headers` come last), fetch the model list.
    """

    def __init__(self, provider: Endpoint) -> None:
        self.provider = provider
        self.http = HTTPTransport(provider)

    def _own_headers(self) -> dict[str, str]:
        """The wire format's headers: the API key in its place, a version."""
        return {}

    def _headers(self, accept: str) -> dict[str, str]:
        """The request's headers; a key or header value that HTTP cannot carry is a `ProviderError` naming it."""
        return request_headers(self.provider, self._own_headers(), accept, self.http.fail)

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _model_entries(self, url: str, *keys: str) -> list[Any]:
        """The array under the first of `keys` in the model list at `url`; a ProviderError when there is none."""
        data = await self.http.get_json(url, self._headers("application/json"))
        for key in keys:
            entries = data.get(key) if isinstance(data, dict) else None
            if isinstance(entries, list):
                return entries
        raise self.http.fail("the model list has an unexpected shape (no 'data' array)")


def error_from_body(text: str) -> str:
    """The server's own error text from an error body of any common shape, else the body's start.

    Shapes: OpenAI / OpenRouter / Anthropic `{"error": {"message": ...}}`, Ollama `{"error": "..."}`, vLLM
    `{"object": "error", "message": ...}`, FastAPI `{"detail": ...}`; OpenRouter's `metadata.raw` (the
    upstream provider's own words) and `provider_name` are appended when present.
    """
    text = text.strip()
    if not text:
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        return _short(" ".join(text.split()))
    return _short(error_text(data) or " ".join(text.split()))


def error_text(data: Any) -> str:
    """The message inside an error object (also the `error` of a mid-stream event)."""
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        return ""
    error = data.get("error")
    if isinstance(error, str):
        return error
    if isinstance(error, dict):
        message = str(error.get("message") or error.get("type") or error.get("code") or "")
        metadata = error.get("metadata")
        if isinstance(metadata, dict):
            provider_name = metadata.get("provider_name")
            raw = metadata.get("raw")
            if provider_name:
                message += f" [upstream: {provider_name}]"
            if raw:
                message += f" — {raw if isinstance(raw, str) else json.dumps(raw)}"
        return message
    for key in ("message", "detail"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
        if value:
            return json.dumps(value)
    return ""


def transport_error(error: httpx.HTTPError | httpx.InvalidURL, provider: Endpoint) -> str:
    """A connection-level failure in words: what happened and what to check."""
    if isinstance(error, httpx.UnsupportedProtocol | httpx.InvalidURL):
        if not provider.base_url:
            return "the provider has no base URL; set one, for example http://127.0.0.1:8080/v1"
        return (
            f"the base URL {provider.base_url!r} is not a valid http(s) URL ({_reason(error)}); "
            "it must look like http://host:port/v1 or https://host/v1"
        )
    where = provider.base_url or "the endpoint"
    if isinstance(error, httpx.ConnectTimeout):
        return f"timed out connecting to {where} after {provider.connect_timeout:g} s; check the address and network"
    if isinstance(error, httpx.ReadTimeout):
        return (
            f"the server sent nothing for {provider.read_timeout:g} s (read timeout); it may be overloaded or the "
            "model still loading — try again, or raise the provider's read timeout"
        )
    if isinstance(error, httpx.TimeoutException):
        return f"the request to {where} timed out"
    if isinstance(error, httpx.ConnectError):
        return f"cannot connect to {where} ({_reason(error)}); is the server running and the base URL right?"
    if isinstance(error, httpx.RemoteProtocolError):
        return f"the connection to {where} broke in the middle of the answer ({_reason(error)})"
    return f"network error talking to {where}: {_reason(error)}"


def _reason(error: BaseException) -> str:
    """The most telling words of an error, looking through the causes httpx and anyio wrap it in."""
    seen: BaseException | None = error
    for _ in range(6):
        if seen is None:
            break
        if isinstance(seen, ConnectionRefusedError) or "Connection refused" in str(seen):
            return "connection refused"
        if isinstance(seen, socket.gaierror):
            return "the host name cannot be resolved"
        seen = seen.__cause__ or seen.__context__
    text = str(error).strip()
    if "header" in text.lower():
        # h11 quotes the offending header value (an API key, a token) in its message: never show it.
        return "a request header holds a value HTTP does not allow (values are not shown)"
    return text or type(error).__name__


def is_permanent_error(status: int | None, server_message: str) -> bool:
    """Whether the same request would fail the same way: a 4xx (but 429), or a 5xx that names a request problem.

    `status` None is an error event inside a stream: permanent only when its words say the request is wrong.
    """
    lowered = server_message.lower()
    busy = any(word in lowered for word in _BUSY_WORDS)
    about_request = any(word in lowered for word in _REQUEST_WORDS)
    if status is None:
        return about_request and not busy
    if status in (502, 503, 504, 529, 429):
        return False
    if status not in RETRY_STATUSES:
        return not busy or status < 500
    return about_request and not busy


def _hint(status: int, provider: Endpoint, permanent: bool = False) -> str:
    if status in (401, 403):
        where = f"the key in ${provider.api_key_env}" if provider.api_key_env else "the provider's API key"
        if provider.api_key is None:
            return f"the server wants an API key and none is set; set {where}"
        return f"the server refused the API key; check {where}"
    if status == 404:
        if provider.kind == "anthropic":
            return (
                f"not found at {provider.base_url or 'the Anthropic endpoint'}; check the base URL (the address of "
                "an Anthropic Messages endpoint, /v1 is added when missing) and the model id"
            )
        return (
            f"not found at {provider.base_url}; check the base URL (OpenAI-compatible servers usually end in /v1) "
            "and the model id"
        )
    if status == 402:
        return "the account has no credit left for this request"
    if status == 429:
        return "rate limited or out of quota; wait a moment and try again"
    if status == 529:
        return "the service is overloaded; try again shortly"
    if status >= 500 and permanent:
        return "the server rejected the request (a server error about the request itself: retrying would not help)"
    if status >= 500:
        return "the server failed; try again shortly"
    if status in (400, 422):
        return "the server rejected the request"
    return "the request failed"


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _int_setting(settings: Mapping[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _float_setting(settings: Mapping[str, Any], key: str, default: float) -> float:
    value = settings.get(key, default)
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return default


def _short(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
