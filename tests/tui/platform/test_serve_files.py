"""Files dropped on or pasted into `visindigo serve`'s page reach the app (tui/platform/serve_files.py).

Three parts, each real: the page's script run by node against a stand-in page and websocket (a drop of two
files, a pasted screenshot, text left to xterm.js, a file over the limit); the server's side (`DropFolder`) fed
pieces as a hostile page might send them; and the whole way on a running `visindigo serve` — the page carries the
script, a file sent over the tab's websocket in pieces becomes a chip in the app, one over the limit is refused
in the app's own line, and the folder goes with the tab.
"""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
import subprocess
import time
from pathlib import Path

import aiohttp
import pytest

from tests.engine.attachments.files import png
from tests.tui.platform.test_serve import Tab, _free_port, _page, _serve, home  # noqa: F401 (a fixture)
from visindigo.tui.platform import serve_files
from visindigo.tui.platform.serve_files import MESSAGE, DropFolder, page_script, safe_name

NODE = shutil.which("node")

#: A stand-in for the page around the script: the events it listens to, the websocket textual.js opens, Files.
PAGE = """
const listeners = {};
globalThis.window = globalThis;
globalThis.document = {addEventListener: (kind, handler, capture) => { listeners[kind] = [handler, capture]; }};
const sent = [];
class FakeSocket {
  constructor(url) { this.url = url; this.readyState = 1; }
  send(text) { sent.push(JSON.parse(text)); }
}
FakeSocket.OPEN = 1;
globalThis.WebSocket = FakeSocket;
"""
RUN = """
const {File} = require("node:buffer");
function event(extra) {
  const e = {prevented: false, stopped: false, preventDefault() { this.prevented = true; },
             stopPropagation() { this.stopped = true; }};
  return Object.assign(e, extra);
}
(async () => {
  const socket = new WebSocket("ws://127.0.0.1/ws?width=80&height=24");  // what textual.js does
  const big = new Uint8Array(2500).map((_, i) => i % 251);
  const files = [new File([big], "a b.bin"), new File(["hi\\n"], "n.txt")];
  const drop = event({dataTransfer: {types: ["Files"], files}});
  const over = new File([new Uint8Array(3000)], "huge.iso");
  const dragover = event({dataTransfer: {types: ["Files"]}});
  listeners.dragover[0](dragover);
  listeners.drop[0](drop);
  const text = event({clipboardData: {types: ["text/plain"], files: []}});
  listeners.paste[0](text);
  const shot = event({clipboardData: {types: ["Files"], files: [over]}});
  listeners.paste[0](shot);
  await new Promise((resolve) => setTimeout(resolve, 200));
  console.log(JSON.stringify({
    watched: socket instanceof FakeSocket, capture: Object.values(listeners).every(([, c]) => c === true),
    dragover: dragover.prevented, drop: [drop.prevented, drop.stopped], text: text.prevented,
    shot: shot.prevented, sent}));
})();
"""


def run_script(tmp_path: Path, limit: int, piece: int) -> dict[str, object]:
    script = page_script(limit).replace("<script>", "").replace("</script>", "")
    script = script.replace("PIECE = 786432", f"PIECE = {piece}")
    (tmp_path / "page.js").write_text(PAGE + script + RUN, encoding="utf-8")
    done = subprocess.run([str(NODE), str(tmp_path / "page.js")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.skipif(NODE is None, reason="node runs the page's script")
def test_the_pages_script_sends_dropped_and_pasted_files_in_pieces_and_leaves_text_alone(tmp_path: Path) -> None:
    result = run_script(tmp_path, limit=2600, piece=1024)
    assert result["watched"] and result["capture"] and result["dragover"]  # a drop is allowed on the page
    assert result["drop"] == [True, True]  # taken before xterm.js sees it
    assert result["text"] is False  # a paste of text goes to xterm.js as before
    assert result["shot"] is True
    pieces = result["sent"]
    assert isinstance(pieces, list) and {p[0] for p in pieces} == {MESSAGE}
    by_file: dict[int, list[dict[str, object]]] = {}
    for _, fields in pieces:
        by_file.setdefault(fields["id"], []).append(fields)
    first, second, third = (by_file[n] for n in sorted(by_file))
    assert [(p["name"], p["size"], p["offset"], p["last"]) for p in first] == [
        ("a b.bin", 2500, 0, False), ("a b.bin", 2500, 1024, False), ("a b.bin", 2500, 2048, True),
    ]  # fmt: skip
    assert b"".join(base64.b64decode(str(p["data"])) for p in first) == bytes(i % 251 for i in range(2500))
    assert [(p["name"], base64.b64decode(str(p["data"])), p["last"]) for p in second] == [("n.txt", b"hi\n", True)]
    # over the limit: only what it is, no bytes (the server makes it sparse, the app refuses it by its size)
    assert [(p["name"], p["size"], p["data"], p["last"]) for p in third] == [("huge.iso", 3000, "", True)]


async def shows(tab: Tab, *texts: str) -> None:
    """Wait until the tab's screen (its output played on a 120×40 terminal) shows each of `texts` on a line.
    (`reading` fills `tab.raw` meanwhile: a websocket read that times out ends aiohttp's reading for good.)"""
    import pyte

    deadline = time.monotonic() + 40
    while True:
        screen = pyte.Screen(120, 40)
        pyte.ByteStream(screen).feed(tab.raw)
        if all(any(text in line for line in screen.display) for text in texts):
            return
        if time.monotonic() > deadline:
            pytest.fail(f"the tab never showed {texts!r}:\n" + "\n".join(screen.display))
        await asyncio.sleep(0.2)


async def reading(tab: Tab) -> None:
    """Everything the tab's app draws, into `tab.raw`, until its websocket closes."""
    async for message in tab.websocket:
        if message.type == aiohttp.WSMsgType.BINARY:
            tab.raw += message.data


def piece(number: int, name: str, size: int, offset: int, data: bytes, last: bool) -> dict[str, object]:
    return {"id": number, "name": name, "size": size, "offset": offset, "data": base64.b64encode(data).decode(),
            "last": last}  # fmt: skip


def test_the_server_writes_each_file_whole_in_a_folder_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = DropFolder(limit=100)
    try:
        assert folder.take(piece(1, "shot.png", 6, 0, b"abc", False)) is None
        path = folder.take(piece(1, "shot.png", 6, 3, b"def", True))
        assert path is not None and path.read_bytes() == b"abcdef" and path.name == "shot.png"
        again = folder.take(piece(2, "shot.png", 1, 0, b"x", True))  # the same name twice: two files
        assert again is not None and again != path and again.read_bytes() == b"x"
        over = folder.take(piece(3, "disk.img", 2 * 1024**3, 0, b"", True))
        assert over is not None and over.stat().st_size == 2 * 1024**3 and over.stat().st_blocks == 0  # sparse
        # what does not fit what was declared ends that file, unwritten
        assert folder.take(piece(4, "a", 4, 0, b"abcdef", True)) is None
        assert folder.take(piece(5, "b", 4, 0, b"ab", False)) is None
        assert folder.take(piece(5, "b", 4, 3, b"cd", True)) is None  # a gap
        assert folder.take(piece(6, "c", 4, 2, b"cd", True)) is None  # no first piece
        assert folder.take({"id": 7, "size": 1, "offset": 0, "data": "%%%", "last": True}) is None
        assert folder.take({"id": "x"}) is None
        assert folder.take(piece(8, "short", 4, 0, b"ab", True)) is None  # ended early
        for number in range(20):  # a page that opens many files at once is held to a few
            folder.take(piece(100 + number, "f", 10, 0, b"a", False))
        assert len(list(folder.root.rglob("f"))) == 8
    finally:
        folder.remove()
    tab = DropFolder(limit=100)
    try:  # a tab brings at most MAX_TAB_BYTES in all
        monkeypatch.setattr(serve_files, "MAX_TAB_BYTES", 10)
        assert tab.take(piece(1, "a", 6, 0, b"abcdef", True)) is not None
        assert tab.take(piece(2, "b", 6, 0, b"abcdef", True)) is None
    finally:
        tab.remove()
    assert not folder.root.exists()


def test_a_browsers_name_becomes_one_safe_file_name() -> None:
    assert safe_name("../../etc/passwd") == "passwd"
    assert safe_name("C:\\Users\\me\\shot 1.png") == "shot 1.png"
    assert safe_name("evil\x1b]2;PWNED\x07\u202e.txt") == "evil]2;PWNED.txt"
    assert safe_name("..") == "dropped-file" and safe_name("") == "dropped-file" and safe_name(".bashrc") == "bashrc"
    assert len(safe_name("a" * 500)) == 120


async def test_a_file_sent_from_the_page_is_attached_in_the_app_and_one_over_the_limit_is_refused(
    home: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drops = tmp_path / "server-tmp"
    drops.mkdir()
    monkeypatch.setenv("TMPDIR", str(drops))
    port = _free_port()
    server = _serve(port, cwd=home)
    try:
        async with aiohttp.ClientSession() as session:
            page = await _page(session, port)
            assert f'"{MESSAGE}"' in page and page.index(MESSAGE) < page.index("textual.js")
            websocket = await session.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=40")
            tab = Tab(websocket)
            reader = asyncio.create_task(reading(tab))
            await websocket.send_json(["focus"])  # as the browser says when the page has the focus
            await shows(tab, "Deer park first.", "enter sends")  # the stored dialog is open: a file waits there
            picture = png(40, 20)
            for offset in range(0, len(picture), 50):  # in pieces, as the page sends a large file
                chunk = picture[offset : offset + 50]
                last = offset + 50 >= len(picture)
                await websocket.send_json([MESSAGE, piece(1, "shot.png", len(picture), offset, chunk, last)])
            await shows(tab, "▣ shot.png (image · 40×20 · 96 B)  shift+tab to remove")  # the chip over the composer
            await websocket.send_json([MESSAGE, piece(2, "disk.img", 3 * 1024**3, 0, b"", True)])
            # the app's own refusal, as for a local file (a toast: its lines wrapped, the path cut at the front)
            await shows(tab, "Not attached:", "is 3.2 GB; files up to 268.4 MB can be attached")
            (dropped,) = drops.glob("visindigo-dropped-*")
            assert sorted(p.name for p in dropped.rglob("*") if p.is_file()) == ["disk.img", "shot.png"]
            await websocket.close()
            await reader
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert list(drops.glob("visindigo-dropped-*")) == []  # the tab's folder went with it
