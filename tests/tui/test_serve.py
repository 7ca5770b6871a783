"""`visindigo serve` serves the real app to a browser over a websocket, on loopback."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time

import aiohttp
import pytest


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_browser_session_gets_the_app() -> None:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "visindigo", "serve", "--demo", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 20
            while True:
                try:
                    async with session.get(f"http://127.0.0.1:{port}/") as response:
                        page = await response.text()
                        break
                except aiohttp.ClientConnectionError:
                    if time.monotonic() > deadline:
                        pytest.fail("visindigo serve did not answer on 127.0.0.1")
                    await asyncio.sleep(0.2)
            assert "textual.js" in page
            received = b""
            async with session.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30") as websocket:
                async with asyncio.timeout(30):
                    async for message in websocket:
                        data = message.data if isinstance(message.data, bytes) else str(message.data).encode()
                        received += data
                        if b"enter sends" in received:  # the composer of the main screen
                            break
            assert b"enter sends" in received
    finally:
        server.terminate()
        server.wait(timeout=10)
