"""A chat request sent before the asynchronous HTTP stack is loaded, and handed to the run that would send it.

`visindigo ask` spends most of its start importing asyncio and httpx (bench/ask_start.py). For the common
question it builds the first request of the run with the run loop's own code (`run_setup`, the wire formats'
`*_body` modules), writes it to a plain socket here — stdlib `socket`, nothing else loaded — and only then
imports the rest. `HTTPTransport.open_stream` takes the connection (`take`) for its first request if and only
if the URL, the headers and the JSON body it is about to send are equal to what was sent (the dicts, not bytes);
the response is then read from that socket (`early_response`) and goes through the same status checks,
retries, error messages and SSE parsing as any other. Anything else — another request first, a difference in a
header or the body — closes the early connection with one line in the log, and the run sends its own.

Plain http and https are sent early (https verified as httpx verifies: `ssl_context`), never through a proxy
(httpx honours the proxy variables; nothing here does), and only URLs httpx would send as they are written, so
the request line and Host header are the ones httpx writes.
"""

from __future__ import annotations

import _socket
import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import ssl  # loaded only for an https request

__all__ = ["EarlyRequest", "discard", "proxy_in_environment", "send", "take", "waiting"]

log = logging.getLogger(__name__)

#: The variables through which httpx (`trust_env`) would route a request over a proxy (either case).
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
#: What may appear in a URL's host and path for it to go out as written (httpx normalises anything else).
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:")
#: The headers written here besides the adapter's (a provider's own header of one of these names: the run sends).
_OWN_HEADERS = frozenset({"host", "accept-encoding", "connection", "user-agent", "content-length", "content-type"})
#: httpx decodes these whatever extras are installed; the response is decoded by httpx as any other.
_ACCEPT_ENCODING = "gzip, deflate"


@dataclass
class EarlyRequest:
    """One request on the wire: what was sent (to compare), and the connection its answer comes on."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]
    #: The request as h11 needs to know it was sent: target, headers (bytes), body bytes.
    target: bytes
    wire_headers: list[tuple[bytes, bytes]]
    data: bytes
    #: The connection: a bare `_socket.socket` (the `socket` module and its `selectors` are 3 ms of a start);
    #: `early_response` wraps it in a `socket.socket` once asyncio has loaded that module anyway.
    sock: _socket.socket | None = field(default=None, repr=False)
    #: For https: the TLS session over `sock`, its bytes passed through memory (`Tls`), so that the event loop
    #: can go on reading the same socket once asyncio has loaded.
    tls: Tls | None = field(default=None, repr=False)

    def difference(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> str:
        """ "" when the run's request is this one, else what differs (names only: no value is logged)."""
        if url != self.url:
            return "the URL"
        if headers != self.headers:
            names = sorted({*headers, *self.headers} - {n for n in headers if headers.get(n) == self.headers.get(n)})
            return f"the headers ({', '.join(names)})"
        if body != self.body:
            keys = sorted({*body, *self.body} - {k for k in body if k in self.body and body[k] == self.body[k]})
            return f"the body ({', '.join(keys)})"
        return ""

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(_socket.SHUT_RDWR)  # wakes a read waiting on it
            sock.close()


@dataclass
class Tls:
    """A TLS client session on a socket through memory BIOs (`ssl.SSLObject`)."""

    session: ssl.SSLObject
    incoming: ssl.MemoryBIO  # bytes read from the socket, to decrypt
    outgoing: ssl.MemoryBIO  # bytes to write to the socket

    def pending_out(self) -> bytes:
        return bytes(self.outgoing.read())


_waiting: list[EarlyRequest] = []


def proxy_in_environment() -> bool:
    """Whether httpx would look at a proxy for some request (its `trust_env` reads these, either case)."""
    return any(os.environ.get(name) or os.environ.get(name.upper()) for name in PROXY_VARIABLES)


def send(
    url: str, headers: dict[str, str], body: dict[str, Any], *, connect_timeout: float, user_agent: str = ""
) -> EarlyRequest | None:
    """POST `body` as JSON to `url` on a new connection and keep it for `take`; None when it was not sent.

    Not sent (nothing reaches the server): an address that is not http(s) written as httpx would send it, a
    header httpx would merge with its own (Host, User-Agent, …), a header or body httpx would refuse, a
    connection that cannot be made, a certificate refused. A connection that fails while the request is written
    is closed: the server has an incomplete request, which it cannot act on.
    """
    if proxy_in_environment():
        return None
    try:
        parts = urlsplit(url)
        host, given_port = parts.hostname, parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not host or parts.username is not None or parts.query:
        return None
    if parts.fragment or {name.lower() for name in headers} & _OWN_HEADERS:
        return None
    secure = parts.scheme == "https"
    default_port = 443 if secure else 80
    port = given_port or default_port
    if not set(parts.netloc) <= _PLAIN or not set(parts.path) <= _PLAIN or "/." in parts.path:
        return None
    if host != host.lower() or (given_port == default_port and ":" in parts.netloc):
        return None  # httpx writes the host in lower case and leaves the default port out
    try:
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        named = [("Host", parts.netloc), ("Accept-Encoding", _ACCEPT_ENCODING), ("Connection", "keep-alive")]
        if user_agent:
            named.append(("User-Agent", user_agent))
        named += [*headers.items(), ("Content-Length", str(len(data))), ("Content-Type", "application/json")]
        wire = [(name.encode("ascii"), value.encode("ascii")) for name, value in named]
    except (ValueError, UnicodeEncodeError):
        return None
    target = (parts.path or "/").encode("ascii")
    head = b"POST " + target + b" HTTP/1.1\r\n" + b"".join(name + b": " + value + b"\r\n" for name, value in wire)
    sock = _connect(host, port, connect_timeout)
    if sock is None:
        return None
    tls = None
    try:
        sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        if secure:
            tls = _handshake(sock, host)
            tls.session.write(head + b"\r\n" + data)
            sock.sendall(tls.pending_out())
        else:
            sock.sendall(head + b"\r\n" + data)
    except (OSError, ValueError):  # ssl.SSLError is an OSError: a certificate refused, nothing was sent
        sock.close()
        return None
    early = EarlyRequest(url, dict(headers), body, target, wire, data, sock, tls)
    _waiting.append(early)
    return early


def _handshake(sock: _socket.socket, host: str) -> Tls:
    """A TLS session with `host` over `sock`, verified as httpx verifies (`ssl_context`); raises `ssl.SSLError`
    (an `OSError`) when the certificate is refused, before any byte of the request is written."""
    import ssl

    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = Tls(ssl_context().wrap_bio(incoming, outgoing, server_hostname=host), incoming, outgoing)
    while True:
        try:
            tls.session.do_handshake()
        except ssl.SSLWantReadError:
            sock.sendall(tls.pending_out())
            received = sock.recv(65536)
            if not received:
                raise ConnectionResetError("the server closed the connection during the TLS handshake") from None
            tls.incoming.write(received)
            continue
        sock.sendall(tls.pending_out())
        return tls


def ssl_context() -> ssl.SSLContext:
    """The context httpx makes for a client that verifies (`httpx.create_ssl_context(trust_env=True)`, which
    `_httpx.shared_ssl_context` uses): SSL_CERT_FILE, else SSL_CERT_DIR, else certifi's bundle; with the ALPN
    httpcore sets (HTTP/1.1 only)."""
    import ssl

    if os.environ.get("SSL_CERT_FILE"):
        context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    elif os.environ.get("SSL_CERT_DIR"):
        context = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    else:
        import certifi

        context = ssl.create_default_context(cafile=certifi.where())
    context.set_alpn_protocols(["http/1.1"])
    return context


def _connect(host: str, port: int, timeout: float) -> _socket.socket | None:
    """A connection to the first address of `host` that takes one (as `socket.create_connection` makes it);
    None when none does. The host goes to getaddrinfo as bytes: a str would load the idna codec."""
    try:
        addresses = _socket.getaddrinfo(host.encode("ascii"), port, 0, _socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    for family, kind, protocol, _name, address in addresses:
        sock = _socket.socket(family, kind, protocol)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError:
            sock.close()
            continue
        return sock
    return None


def take(url: str, headers: dict[str, str], body: dict[str, Any]) -> EarlyRequest | None:
    """The early request when the run's first request is exactly it (its connection is the caller's now);
    otherwise None, and an early request that differs is closed, with one line in the log naming what differs."""
    if not _waiting:
        return None
    early = _waiting.pop(0)
    difference = early.difference(url, headers, body)
    if difference:
        log.warning("the request sent early differs from the run's in %s; it is dropped and the run's sent", difference)
        early.close()
        return None
    return early


def waiting() -> bool:
    return bool(_waiting)


def discard() -> None:
    """Close every early request no run took (the run failed before its request, ctrl+c, the process ends)."""
    while _waiting:
        _waiting.pop().close()
