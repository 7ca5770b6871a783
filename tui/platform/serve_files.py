"""Files dropped on or pasted into `visindigo serve`'s page reach the app: the one way to bring a file from the
browser's machine into a session on a remote one.

textual-serve's page (xterm.js) sends the app keys, pasted text and the window size only: a dropped file is not
read and a pasted screenshot arrives as nothing. So the page gets a small script of ours (`DROP_SCRIPT`, put in
before textual.js) that reads a dropped or pasted file in the browser and sends it over the tab's own websocket
in base64 pieces (`["visindigo-file", {...}]`, a message textual-serve itself would ignore). The server writes it
into a folder of its own and types its path into the app as a bracketed paste, the way a terminal pastes a file
dropped on it — so the app attaches it by the composer's rules, refusals included, with nothing new in the app.

A file over the attachment size limit is not sent: the server makes a sparse file of the size the browser
declared (no disk used), and the app refuses it in the same line as a local one. The folder goes when the tab's
websocket closes (the app has read what it attached by then).

textual-serve has no hook for other messages, so `_process_messages` (private) is replaced here; it is checked
to exist and, on a textual-serve without it, the page stays as it was (a line in the log).
"""

from __future__ import annotations

import base64
import binascii
import logging
import shlex
import shutil
import tempfile
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiohttp import web
    from textual_serve.app_service import AppService

__all__ = ["DROP_SCRIPT", "MESSAGE", "DropFolder", "make_server", "safe_name"]

log = logging.getLogger("visindigo.serve")

#: The websocket message the page's script sends, one per piece of a file.
MESSAGE = "visindigo-file"
#: Raw bytes in one piece: 1 MB of base64, under aiohttp's 4 MB limit for one websocket message.
PIECE_BYTES = 768 * 1024
#: Files one tab may be sending at once, and the bytes one tab may bring in all (a hostile page could otherwise
#: fill the server's disk; the folder is emptied only when the tab closes).
MAX_OPEN = 8
MAX_TAB_BYTES = 1024**3

#: Put in the page before textual.js: it keeps the websocket textual.js opens, and sends the files of a drop or
#: of a paste (a screenshot copied in the browser's machine is a file in the paste) in pieces over it. Nothing
#: but files is taken from a drop or a paste: text is left to xterm.js, as before.
DROP_SCRIPT = """<script>
(() => {
  const LIMIT = __LIMIT__, PIECE = __PIECE__, KIND = "__MESSAGE__";
  const Native = window.WebSocket;
  let socket = null, next = 0, queue = Promise.resolve();
  function Watched(url, protocols) {
    const made = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket = made;
    return made;
  }
  Watched.prototype = Native.prototype;
  for (const key of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) Watched[key] = Native[key];
  window.WebSocket = Watched;
  function base64(bytes) {
    let text = "";
    for (let at = 0; at < bytes.length; at += 0x8000) {
      text += String.fromCharCode.apply(null, bytes.subarray(at, at + 0x8000));
    }
    return btoa(text);
  }
  async function send(file) {
    if (!socket || socket.readyState !== 1) return;
    const id = ++next, size = file.size, name = String(file.name || "");
    const piece = (fields) => socket.send(JSON.stringify([KIND, Object.assign({id, name, size}, fields)]));
    if (size > LIMIT) { piece({offset: 0, data: "", last: true}); return; }
    let offset = 0;
    do {  // an empty file is one empty piece
      const bytes = new Uint8Array(await file.slice(offset, offset + PIECE).arrayBuffer());
      piece({offset, data: base64(bytes), last: offset + PIECE >= size});
      offset += PIECE;
    } while (offset < size);
  }
  function take(files, event) {
    if (!files || !files.length) return;
    event.preventDefault();
    event.stopPropagation();
    for (const file of Array.from(files)) queue = queue.then(() => send(file)).catch(() => {});
  }
  const hasFiles = (data) => !!data && Array.from(data.types || []).includes("Files");
  document.addEventListener("dragover", (event) => {
    if (hasFiles(event.dataTransfer)) event.preventDefault();
  }, true);
  document.addEventListener("drop", (event) => take(event.dataTransfer && event.dataTransfer.files, event), true);
  document.addEventListener("paste", (event) => take(event.clipboardData && event.clipboardData.files, event), true);
})();
</script>
"""


def page_script(limit: int) -> str:
    return (
        DROP_SCRIPT.replace("__LIMIT__", str(limit))
        .replace("__PIECE__", str(PIECE_BYTES))
        .replace("__MESSAGE__", MESSAGE)
    )


def safe_name(name: object) -> str:
    """The file's name as the browser gave it, made safe as one file name: no folders, no control or format
    characters (the app cleans what it shows too), at most 120 characters; "dropped-file" when nothing is left."""
    text = str(name).replace("\\", "/").rsplit("/", 1)[-1]
    text = "".join(c for c in text if unicodedata.category(c)[0] != "C")
    text = text.strip().lstrip(".")[:120]
    return text or "dropped-file"


class DropFolder:
    """The files one tab sends, each in a folder of its own under a private temporary folder."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.root = Path(tempfile.mkdtemp(prefix="visindigo-dropped-"))
        self._open: dict[int, tuple[Path, int, int]] = {}  # id: (path, declared size, bytes written)
        self._count = 0
        self._taken = 0  # bytes written by this tab

    def take(self, fields: dict[str, Any]) -> Path | None:
        """Write one piece; the file's path once its last piece is in, else None. A piece that does not fit
        what was declared ends that file, unwritten."""
        try:
            number, size, offset = int(fields["id"]), int(fields["size"]), int(fields["offset"])
            data = base64.b64decode(str(fields.get("data", "")), validate=True)
            last = bool(fields.get("last"))
        except (KeyError, TypeError, ValueError, binascii.Error):
            return None
        if number not in self._open:
            if offset != 0 or size < 0 or len(self._open) >= MAX_OPEN:
                return None
            self._count += 1
            folder = self.root / str(self._count)
            folder.mkdir()
            path = folder / safe_name(fields.get("name"))
            with path.open("wb") as out:
                if size > self.limit:  # not sent: sparse, so that the app says how large it is, as for a local file
                    out.truncate(size)
                    return path
            self._open[number] = (path, size, 0)
        path, declared, written = self._open[number]
        if offset != written or written + len(data) > declared or self._taken + len(data) > MAX_TAB_BYTES:
            del self._open[number]
            path.unlink(missing_ok=True)
            return None
        with path.open("ab") as out:
            out.write(data)
        written += len(data)
        self._taken += len(data)
        if last:
            del self._open[number]
            return path if written == declared else None
        self._open[number] = (path, declared, written)
        return None

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def pasted(path: Path) -> bytes:
    """The path as a terminal pastes a dropped file: quoted, inside bracketed-paste marks."""
    return b"\x1b[200~" + shlex.quote(str(path)).encode() + b"\x1b[201~"


def make_server(command: str, **options: Any) -> Any:
    """textual-serve's `Server` whose page takes dropped and pasted files (see the module's docstring); the
    plain one on a textual-serve whose websocket loop is not the one this was written against."""
    from textual_serve.server import Server

    from visindigo.engine.attachments import MAX_FILE_BYTES

    if not callable(getattr(Server, "_process_messages", None)):
        log.warning("textual-serve has no _process_messages: files dropped on the page are not taken")
        return Server(command, **options)

    class DropServer(Server):
        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            from aiohttp import web

            response = await super().handle_index(request)
            text = response.text if isinstance(response, web.Response) else None
            if isinstance(response, web.Response) and text and "<script" in text:
                at = text.index("<script")
                page = text[:at] + page_script(MAX_FILE_BYTES) + text[at:]
                response.body = page.encode(response.charset or "utf-8")
            return response

        async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
            from aiohttp import WSMsgType

            folder = DropFolder(MAX_FILE_BYTES)
            try:
                async for message in websocket:
                    if message.type != WSMsgType.TEXT:
                        continue
                    envelope = message.json()
                    if not isinstance(envelope, list) or not envelope:
                        continue
                    if envelope[0] == MESSAGE:
                        fields = envelope[1] if len(envelope) > 1 and isinstance(envelope[1], dict) else {}
                        path = folder.take(fields)
                        if path is not None:
                            await app_service.send_bytes(pasted(path))
                        continue
                    await _textual_serve_message(websocket, app_service, envelope)
            finally:
                folder.remove()

    return DropServer(command, **options)


async def _textual_serve_message(
    websocket: web.WebSocketResponse, app_service: AppService, envelope: list[Any]
) -> None:
    """What textual-serve 1.1's own loop does with each message of the page."""
    kind = envelope[0]
    data = envelope[1] if len(envelope) > 1 else None
    if kind == "stdin" and isinstance(data, str):
        await app_service.send_bytes(data.encode("utf-8"))
    elif kind == "resize" and isinstance(data, dict):
        await app_service.set_terminal_size(data["width"], data["height"])
    elif kind == "ping":
        await websocket.send_json(["pong", data])
    elif kind == "blur":
        await app_service.blur()
    elif kind == "focus":
        await app_service.focus()
