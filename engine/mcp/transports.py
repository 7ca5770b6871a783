"""Opening the SDK transport for one server (stdio, Streamable HTTP or legacy SSE).

Imported only when a server actually starts: this module imports the `mcp` SDK and `httpx2`, which take a
noticeable time to load and are not needed by anyone who configured no MCP server.

Every transport is wrapped so that the end of the server's message stream (a crashed process, a dropped
connection) is reported to the owner at once, instead of being noticed only by the next call that fails.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from types import TracebackType
from typing import Any, TextIO

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from .expand import ResolvedServer, child_environment

# The SDK logs transport trouble with logger.exception(); with no handler configured anywhere, Python would
# print those tracebacks to stderr — over the full-screen UI. A NullHandler stops that fallback while records
# still propagate to whatever handlers the app sets up (a log file).
logging.getLogger("mcp").addHandler(logging.NullHandler())

#: Connect/write limits for HTTP servers; reads may wait long because a server can hold a stream open.
HTTP_TIMEOUT = 30.0
HTTP_READ_TIMEOUT = 300.0


class WatchedReadStream:
    """A read stream that calls `on_end` once when the server's side of the conversation ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end
        self._ended = False

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._on_end()

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
            return item
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> WatchedReadStream:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None

    def __getattr__(self, name: str) -> Any:
        # `last_context` and any other optional attribute the dispatcher looks up with getattr().
        return getattr(self._inner, name)


@asynccontextmanager
async def open_transport(
    kind: str,
    resolved: ResolvedServer,
    errlog: TextIO,
    on_end: Callable[[], None],
    on_http_error: Callable[[int, str], None] | None = None,
    auth: httpx2.Auth | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """Start or connect to the server and yield its message streams; leaving the block stops it.

    `on_http_error(status, reason)` hears of every HTTP error answer on Streamable HTTP: the SDK turns them
    all into "Server returned an error response", which tells a user nothing about a 401 or a 404.
    """
    async with AsyncExitStack() as stack:
        # The SDK's stream types live in private modules (mcp.shared._stream_protocols): typed loosely here.
        read: Any
        write: Any
        if kind == "stdio":
            parameters = StdioServerParameters(
                command=resolved.command,
                args=list(resolved.args),
                env=child_environment(resolved.env),
                cwd=resolved.cwd or None,
            )
            read, write = await stack.enter_async_context(stdio_client(parameters, errlog=errlog))
        elif kind == "sse":
            read, write = await stack.enter_async_context(
                sse_client(
                    resolved.url,
                    headers=resolved.headers,
                    timeout=HTTP_TIMEOUT,
                    sse_read_timeout=HTTP_READ_TIMEOUT,
                    auth=auth,
                )
            )
        else:

            async def note_error(response: httpx2.Response) -> None:
                if response.status_code >= 400 and on_http_error is not None:
                    on_http_error(response.status_code, response.reason_phrase)

            client = httpx2.AsyncClient(
                headers=resolved.headers,
                timeout=httpx2.Timeout(HTTP_TIMEOUT, read=HTTP_READ_TIMEOUT),
                event_hooks={"response": [note_error]},
                auth=auth,
            )
            await stack.enter_async_context(client)
            read, write = await stack.enter_async_context(streamable_http_client(resolved.url, http_client=client))
        yield WatchedReadStream(read, on_end), write
