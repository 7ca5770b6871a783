"""A real browser drops a file on `visindigo serve`'s page: headless Chromium, driven over its DevTools protocol
(`Input.dispatchDragEvent` with a file from disk, as a drag from the desktop), textual-serve's own page with
xterm.js, and the app behind it. Skipped where Chromium is not installed (`apt-get install chromium`)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.engine.attachments.files import photo
from tests.tui.platform.test_serve import _free_port, home  # noqa: F401 (a fixture)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")


class Page:
    """One browser tab over the DevTools protocol, keeping what the app sent the page over its websocket."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse) -> None:
        self.websocket = websocket
        self.number = 0
        self.drawn = b""

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.number += 1
        await self.websocket.send_json({"id": self.number, "method": method, "params": params})
        while True:
            message = json.loads((await self.websocket.receive()).data)
            if message.get("method") == "Network.webSocketFrameReceived":
                frame = message["params"]["response"]
                if frame.get("opcode") == 2:  # binary: the app's output, as the page's xterm.js gets it
                    self.drawn += base64.b64decode(frame["payloadData"])
            if message.get("id") == self.number:
                assert "error" not in message, message
                return message.get("result", {})  # type: ignore[no-any-return]

    def screen(self) -> list[str]:
        """What xterm.js shows: the app's output played on a terminal at least as large as the page's."""
        import pyte

        screen = pyte.Screen(200, 60)
        pyte.ByteStream(screen).feed(self.drawn)
        return [line.rstrip() for line in screen.display]

    async def until_shown(self, *texts: str, seconds: float = 60) -> list[str]:
        deadline = time.monotonic() + seconds
        while True:
            await self.call("Runtime.evaluate", expression="1")  # takes the frames that came meanwhile
            shown = self.screen()
            if all(any(text in line for line in shown) for text in texts):
                return shown
            if time.monotonic() > deadline:
                pytest.fail(f"the page never showed {texts}; it shows:\n" + "\n".join(shown))
            await asyncio.sleep(0.3)


async def _chromium(tmp_path: Path) -> AsyncIterator[Page]:
    port = _free_port()
    browser = subprocess.Popen(
        [str(CHROMIUM), "--headless=new", "--no-sandbox", "--disable-gpu", f"--remote-debugging-port={port}",
         # no look-ups, updates or sync: a test reaches nothing but loopback
         "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-quic", "--disable-default-apps", "--disable-domain-reliability",
         f"--user-data-dir={tmp_path / 'chromium'}", "--window-size=1100,700", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 60
            pages: list[dict[str, Any]] = []
            while not pages:
                if time.monotonic() > deadline:
                    browser.kill()
                    pytest.fail(f"Chromium did not start: {browser.stderr.read()[-2000:] if browser.stderr else ''}")
                try:
                    async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                        pages = [t for t in await response.json() if t["type"] == "page"]
                except aiohttp.ClientError:
                    await asyncio.sleep(0.2)
            websocket = await session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
            yield Page(websocket)
            await websocket.close()
    finally:
        browser.terminate()
        browser.wait(timeout=20)


async def test_a_photo_dropped_in_chromium_becomes_a_chip_in_the_app(
    home: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
) -> None:
    dropped = tmp_path / "My Photo.jpg"
    dropped.write_bytes(photo(2000, 1500))  # ~1.3 MB: two pieces over the websocket
    drops = tmp_path / "server-tmp"
    drops.mkdir()
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "visindigo", "serve", "--port", str(port)],
        cwd=home, env={**os.environ, "TMPDIR": str(drops)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        async for page in _chromium(tmp_path):
            await page.call("Page.enable")
            await page.call("Network.enable")
            deadline = time.monotonic() + 30
            while True:  # the server answers once it is up
                try:
                    await asyncio.open_connection("127.0.0.1", port)
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        pytest.fail("visindigo serve did not start")
                    await asyncio.sleep(0.2)
            await page.call("Page.navigate", url=f"http://127.0.0.1:{port}/")
            await page.until_shown("Deer park first.", "enter sends")
            drag = {"items": [], "files": [str(dropped)], "dragOperationsMask": 1}
            for kind in ("dragEnter", "dragOver", "drop"):
                await page.call("Input.dispatchDragEvent", type=kind, x=500, y=300, data=drag)
            shown = await page.until_shown("My Photo.jpg (image · 2000×1500")
            assert not any("Not attached" in line for line in shown)
            [(kept)] = [p for p in drops.rglob("*") if p.is_file()]
            assert kept.read_bytes() == dropped.read_bytes()  # the whole file, through the browser
    finally:
        server.terminate()
        server.wait(timeout=20)
    assert list(drops.iterdir()) == []  # the tab's folder went when the browser closed it
