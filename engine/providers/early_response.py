"""The response to a request sent early (`early`), read from its socket as an `httpx.Response`.

`HTTPTransport.open_stream` uses it in place of `client.send` for the one request it adopted, so what follows —
the status check, retries, redirects refused, error bodies, the SSE parsing — is the code every request goes
through. The socket is read on the event loop (no thread: ctrl+c cancels a read at once), HTTP/1.1 parsed by
h11 (what httpx's own transport uses), through the TLS session `early` made for https (memory BIOs: the event
loop reads the same socket), the body decoded by httpx from its Content-Encoding. Failures become the
httpx exceptions httpx raises for them, so they are worded and retried alike: a server that closes the
connection without an answer is `RemoteProtocolError` (retried once on a new connection, as for a kept-alive one),
a read that waits longer than the provider's read timeout `ReadTimeout`, a reset `ReadError`.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import AsyncIterator
from typing import Any

import h11

from ._httpx import httpx
from .early import EarlyRequest

__all__ = ["response_to"]

_READ_SIZE = 65536


class _Reader:
    """h11 events of the response, read from the socket as needed."""

    def __init__(self, early: EarlyRequest, sock: socket.socket, request: httpx.Request, read_timeout: float) -> None:
        self.early = early
        self.sock = sock
        self.request = request
        self.read_timeout = read_timeout
        self.connection = h11.Connection(h11.CLIENT)
        # h11 is told what was sent, so it reads the response that belongs to it (a HEAD-less POST's body)
        self.connection.send(h11.Request(method=b"POST", target=early.target, headers=early.wire_headers))
        self.connection.send(h11.Data(data=early.data))
        self.connection.send(h11.EndOfMessage())

    async def next_event(self) -> Any:
        while True:
            try:
                event = self.connection.next_event()
            except h11.RemoteProtocolError as error:
                raise httpx.RemoteProtocolError(str(error), request=self.request) from None
            if event is not h11.NEED_DATA:
                return event
            if self.early.sock is None:  # closed (the response was closed while it was read)
                raise httpx.ReadError("the connection was closed", request=self.request)
            try:
                data = await asyncio.wait_for(self._receive(), self.read_timeout)
            except TimeoutError:
                raise httpx.ReadTimeout("timed out reading the response", request=self.request) from None
            except OSError as error:
                raise httpx.ReadError(str(error) or type(error).__name__, request=self.request) from None
            if not data and self.connection.their_state is h11.SEND_RESPONSE:
                raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=self.request)
            self.connection.receive_data(data)


    async def _receive(self) -> bytes:
        """The next bytes of the response (decrypted for https); b"" at its end."""
        loop = asyncio.get_running_loop()
        tls = self.early.tls
        if tls is None:
            return await loop.sock_recv(self.sock, _READ_SIZE)
        while True:
            try:
                data = tls.session.read(_READ_SIZE)
            except ssl.SSLWantReadError:
                received = await loop.sock_recv(self.sock, _READ_SIZE)
                if not received:
                    tls.incoming.write_eof()
                else:
                    tls.incoming.write(received)
                continue
            except (ssl.SSLZeroReturnError, ssl.SSLEOFError):  # the server ended the session (or just the TCP)
                return b""
            finally:
                pending = tls.pending_out()
                if pending:  # what TLS itself has to say back (a key update)
                    await loop.sock_sendall(self.sock, pending)
            return data


class _Body(httpx.AsyncByteStream):
    """The response body as it arrives; closing it closes the connection."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            event = await self.reader.next_event()
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return

    async def aclose(self) -> None:
        self.reader.early.close()


async def response_to(early: EarlyRequest, request: httpx.Request, read_timeout: float) -> httpx.Response:
    """The response head as an `httpx.Response` whose body streams from the early connection (the caller closes
    it with `response.aclose()`); raises the httpx exception a failure would be from `client.send`."""
    if early.sock is None:
        raise httpx.ReadError("the connection was closed", request=request)
    try:
        sock = socket.socket(fileno=early.sock.detach())  # what the event loop reads from
        early.sock = sock
        sock.setblocking(False)
        reader = _Reader(early, sock, request, read_timeout)
        while True:
            event = await reader.next_event()
            if isinstance(event, h11.Response):
                break
            if not isinstance(event, h11.InformationalResponse):
                unexpected = f"unexpected {type(event).__name__} before the response"
                raise httpx.RemoteProtocolError(unexpected, request=request)
    except BaseException:
        early.close()
        raise
    return httpx.Response(
        event.status_code,
        headers=list(event.headers),
        stream=_Body(reader),
        request=request,
        extensions={"http_version": b"HTTP/" + event.http_version, "reason_phrase": bytes(event.reason)},
    )
