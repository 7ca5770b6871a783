"""A small server-sent-events reader that hands over events in batches.

httpx-sse yields one event per iteration, and every line passes through two generator levels and a decoder
object; at fifty thousand one-token events that bookkeeping alone costs more than parsing the JSON. This
reader splits each received piece of the body into lines once and returns all complete events in it as a
list, so the adapters loop over plain tuples. It follows the SSE framing rules the servers rely on
(protocols.md §A): `data:` with or without a space, multi-line data joined with "\\n", `event:` names,
comment lines starting with ":" skipped, LF / CRLF / CR line ends (also when split between pieces). Unlike a
browser it also delivers a last event that lacks its closing blank line: a cut stream then shows its
half-written JSON, which the adapter reports, instead of silently losing it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

__all__ = ["SSEParser", "sse_batches"]


class SSEParser:
    """Feed text pieces; get the complete (event name, data) pairs found so far."""

    __slots__ = ("_data", "_event", "_pending", "_trailing_cr")

    def __init__(self) -> None:
        self._pending = ""
        self._trailing_cr = False
        self._event = ""
        self._data: list[str] = []

    def feed(self, text: str) -> list[tuple[str, str]]:
        if self._trailing_cr:
            if text.startswith("\n"):
                text = text[1:]  # the "\n" of a CRLF split between two pieces
            self._trailing_cr = False
        if "\r" in text:
            self._trailing_cr = text.endswith("\r")
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if self._pending:
            text = self._pending + text
        lines = text.split("\n")
        self._pending = lines.pop()
        return self._lines(lines)

    def flush(self) -> list[tuple[str, str]]:
        """The end of the body: the last line and any event still open."""
        lines = [self._pending] if self._pending else []
        self._pending = ""
        events = self._lines(lines)
        if self._data:
            events.append((self._event, "\n".join(self._data)))
            self._data = []
            self._event = ""
        return events

    def _lines(self, lines: list[str]) -> list[tuple[str, str]]:
        events: list[tuple[str, str]] = []
        data = self._data
        for line in lines:
            if line.startswith("data:"):
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
            elif not line:
                if data:
                    events.append((self._event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = self._data = []
                self._event = ""
            elif line.startswith(":"):
                continue
            else:
                name, _, value = line.partition(":")
                if name == "event":
                    self._event = value[1:] if value.startswith(" ") else value
        return events


async def sse_batches(pieces: AsyncIterator[str]) -> AsyncGenerator[list[tuple[str, str]], None]:
    """The events of a body, one list per received piece that completed at least one event."""
    parser = SSEParser()
    async for text in pieces:
        events = parser.feed(text)
        if events:
            yield events
    events = parser.flush()
    if events:
        yield events
