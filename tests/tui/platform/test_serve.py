"""`visindigo serve` serves the real app to browsers over websockets, on loopback.

Each browser tab is its own app process. Two tabs on one data folder: the first saves, the second reads the same
dialogs beside it and says so in its page (it used to wait on the splash screen for ever while the error went
to the server's console). Saving a message from a tab is a download in that browser, not a file on the server.
A busy port is one line naming it and --port.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from visindigo.engine import Center, Message, Role


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(port: int, *options: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "visindigo", "serve", "--port", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=cwd,
    )


async def _page(session: aiohttp.ClientSession, port: int) -> str:
    deadline = time.monotonic() + 20
    while True:
        try:
            async with session.get(f"http://127.0.0.1:{port}/") as response:
                return await response.text()
        except aiohttp.ClientConnectionError:
            if time.monotonic() > deadline:
                pytest.fail("visindigo serve did not answer on 127.0.0.1")
            await asyncio.sleep(0.2)


class Tab:
    """One browser tab: the websocket of its app, and what the app drew so far (escape sequences removed)."""

    def __init__(self, websocket: aiohttp.ClientWebSocketResponse) -> None:
        self.websocket = websocket
        self.raw = b""
        self.deliveries: list[str] = []

    @property
    def text(self) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", self.raw.decode("utf-8", "replace"))

    async def wait_for(self, *needles: str, seconds: float = 40.0) -> None:
        try:
            await self._wait_for(needles, seconds)
        except TimeoutError:
            pytest.fail(f"the tab never showed {needles}; it shows:\n{self.text[-3000:]}")

    async def delivered(self, seconds: float) -> bool:
        try:
            await self._wait_for(("<delivery>",), seconds)
        except TimeoutError:
            return False
        return True

    async def _wait_for(self, needles: tuple[str, ...], seconds: float) -> None:
        async with asyncio.timeout(seconds):
            while not all(n in self.text for n in needles):
                message = await self.websocket.receive()
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.raw += message.data
                elif message.type == aiohttp.WSMsgType.TEXT:
                    envelope = json.loads(message.data)
                    if envelope[0] == "deliver_file_start":
                        self.deliveries.append(str(envelope[1]))
                        if "<delivery>" in needles:
                            return
                else:
                    pytest.fail(f"the tab's websocket ended: {message.type}")

    async def press(self, keys: str) -> None:
        await self.websocket.send_json(["stdin", keys])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A configured home with one stored dialog, as a user who has used the app has."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[providers.local]\nkind = "scripted"\n', encoding="utf-8")
    center = Center.open(home)
    dialog = center.create_dialog()
    dialog.title = "Stored trip plan"
    dialog.append_message(Role.USER, "Plan a day in Nara")
    dialog.append_message(Message(Role.ASSISTANT, "Deer park first.\nThen Todai-ji."))
    center.close()
    monkeypatch.setenv("VISINDIGO_HOME", str(home))
    yield home


async def test_two_tabs_each_get_a_working_app_and_the_second_says_it_is_read_only(home: Path) -> None:
    port = _free_port()
    server = _serve(port, cwd=home)
    try:
        async with aiohttp.ClientSession() as session:
            assert "textual.js" in await _page(session, port)
            first_socket = await session.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=40")
            first = Tab(first_socket)
            await first.wait_for("enter sends", "Deer park first.")  # the last dialog, opened again
            second_socket = await session.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=40")
            second = Tab(second_socket)
            await second.wait_for("enter sends", "Deer park first.", "Read-only", "Stored trip plan")
            assert "Read-only" not in first.text and "read-only" not in first.text
            await second.wait_for("read-only ")  # on the status line, for as long as the tab is open
            # the second tab works: its messages, and saving one is a download in this browser
            for _attempt in range(5):  # a loaded machine may take a while to hand the focus over
                await second.press("\x0f")  # ctrl+o: the messages
                await asyncio.sleep(0.5)
                await second.press("s")
                if await second.delivered(5.0):
                    break
            assert second.deliveries, second.text[-3000:]
            async with session.get(f"http://127.0.0.1:{port}/download/{second.deliveries[0]}") as response:
                assert response.status == 200
                assert "attachment" in response.headers.get("Content-Disposition", "")
                body = await response.text()
            assert body == "Deer park first.\nThen Todai-ji."
            await first_socket.close()
            await second_socket.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert not list(home.glob("**/visindigo-*.md"))  # nothing was saved on the server's side


async def test_a_tab_whose_app_cannot_start_says_why_in_the_page(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be", encoding="utf-8")
    port = _free_port()
    server = _serve(port, "--data-dir", str(not_a_folder))
    try:
        async with aiohttp.ClientSession() as session:
            await _page(session, port)
            websocket = await session.ws_connect(f"http://127.0.0.1:{port}/ws?width=100&height=30")
            tab = Tab(websocket)
            await tab.wait_for("Visindigo cannot start here", "ctrl+q closes")  # not the splash for ever
            await websocket.close()
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_busy_port_is_one_line_naming_it_and_the_option(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        server = _serve(port, "--demo")
        _, err = server.communicate(timeout=30)
    message = err.decode()
    assert server.returncode == 1
    assert "Traceback" not in message
    assert message.strip().count("\n") == 0
    assert f"port {port}" in message and "--port" in message
