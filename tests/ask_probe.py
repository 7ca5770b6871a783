"""`visindigo ask` with a probe on the socket: `python tests/ask_probe.py ask …` runs it as `python -m visindigo
ask …` does, and appends to the file named by $ASK_PROBE one JSON line per chat request written with
`socket.sendall`, saying whether asyncio and httpx were loaded at that moment.

Only the early send (`engine.providers.early`) writes a request with `socket.sendall`: httpx writes through
asyncio's transports. So a line is a request that left before the run began, and no line means none did.
With $ASK_PROBE_ALTER set, the early request gets a body field the run's own request does not have — a forced
difference, to show that the run then drops the early connection and sends its own.
"""

from __future__ import annotations

import json
import os
import runpy
import socket
import sys
from typing import Any

_sendall = socket.socket.sendall


def _recording_sendall(self: socket.socket, data: Any, *args: Any) -> None:
    if bytes(data[:5]) == b"POST ":
        with open(os.environ["ASK_PROBE"], "a", encoding="utf-8") as probe:
            loaded = {name: name in sys.modules for name in ("asyncio", "httpx", "httpcore", "anyio")}
            probe.write(json.dumps(loaded) + "\n")
    _sendall(self, data, *args)


socket.socket.sendall = _recording_sendall  # type: ignore[method-assign]

if os.environ.get("ASK_PROBE_ALTER"):
    from visindigo.engine.providers import early

    _send = early.send

    def _altered(url: str, headers: dict[str, str], body: dict[str, Any], **options: Any) -> Any:
        return _send(url, headers, {**body, "altered": True}, **options)

    early.send = _altered  # type: ignore[assignment]

sys.argv = ["visindigo", *sys.argv[1:]]
runpy.run_module("visindigo", run_name="__main__", alter_sys=True)
