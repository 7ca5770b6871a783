"""Loopback ports that misbehave, for the connection-failure tests of both wire formats."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on (a connection is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def full_backlog() -> Iterator[int]:
    """A loopback port whose accept queue is full, so a new connection attempt hangs (a connect timeout)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = int(listener.getsockname()[1])
    fillers = []
    for _ in range(4):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for filler in fillers:
        filler.close()
    listener.close()
