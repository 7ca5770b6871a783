"""`visindigo ask` with a probe on the early send: `python tests/ask_probe.py ask …` runs it as `python -m visindigo
ask …` does, and appends to the file named by $ASK_PROBE one JSON line per request `engine.providers.early.send`
wrote to a socket, saying whether asyncio and httpx were loaded at that moment (just before it was written).

So a line is a request that left before the run began, and no line means none did.
With $ASK_PROBE_ALTER set, the early request gets a body field the run's own request does not have — a forced
difference, to show that the run then drops the early connection and sends its own.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from typing import Any

from visindigo.engine.providers import early  # (loads neither asyncio nor httpx: the probe would say so)

_send = early.send


def _recording_send(url: str, headers: dict[str, str], body: dict[str, Any], **options: Any) -> Any:
    loaded = {name: name in sys.modules for name in ("asyncio", "httpx", "httpcore", "anyio")}
    if os.environ.get("ASK_PROBE_ALTER"):
        body = {**body, "altered": True}
    sent = _send(url, headers, body, **options)
    if sent is not None:
        with open(os.environ["ASK_PROBE"], "a", encoding="utf-8") as probe:
            probe.write(json.dumps(loaded) + "\n")
    return sent


early.send = _recording_send  # type: ignore[assignment]

sys.argv = ["visindigo", *sys.argv[1:]]
runpy.run_module("visindigo", run_name="__main__", alter_sys=True)
