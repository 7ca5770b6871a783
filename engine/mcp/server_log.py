"""A stdio server's log file: its stderr and the log messages it sends, never the screen.

Appended to, with a header line per start (the configured, unexpanded command: no secret lands in it), and
moved aside to `.log.1` when it grows past `MAX_LOG_BYTES`.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..mcp_server import LOG_LEVELS

if TYPE_CHECKING:
    from ..mcp_server import MCPServer, Transport

log = logging.getLogger(__name__)

#: A log file larger than this is moved aside to `.log.1` when the server next starts.
MAX_LOG_BYTES = 2_000_000


def log_file_name(name: str) -> str:
    return "mcp-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "server") + ".log"


class ServerLog:
    """Part of `ServerConnection`: the attributes below are its own."""

    server: MCPServer
    log_path: Path | None
    transport: Transport
    _errlog: TextIO | None

    @contextlib.contextmanager
    def _open_log(self) -> Any:
        """The server's log file (appended, rotated when large), or a sink when logging is off."""
        if self.log_path is None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                yield sink
            return
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):
                if self.log_path.stat().st_size > MAX_LOG_BYTES:
                    self.log_path.replace(self.log_path.with_name(self.log_path.name + ".1"))
            opened = open(self.log_path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
        except OSError as error:  # an unwritable log folder must not keep the server from starting
            log.info("cannot write the log of MCP server %r (%s); its output is discarded", self.server.name, error)
            with open(os.devnull, "w", encoding="utf-8") as sink:
                yield sink
            return
        with opened as errlog:
            stamp = datetime.datetime.now().isoformat(timespec="seconds")
            # The stored (unexpanded) settings: a log must not hold a secret either.
            server = self.server
            target = " ".join([server.command, *server.args]) if server.kind == "stdio" else server.url
            errlog.write(f"\n--- {stamp} starting {self.server.name!r} ({self.transport}): {target}\n")
            errlog.flush()
            yield errlog

    async def _on_log_message(self, params: Any) -> None:
        """Log notifications from the server go to its log file, like its stderr — never to the screen.

        Messages below the server's `log_level` are dropped here too: a server may ignore `logging/setLevel`.
        """
        errlog = self._errlog
        wanted, level = self.server.log_level, str(params.level)
        if wanted and level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted):
            return
        if errlog is not None and not errlog.closed:
            data = params.data if isinstance(params.data, str) else json.dumps(params.data, default=str)
            errlog.write(f"[{params.level}] {params.logger + ': ' if params.logger else ''}{data}\n")
            errlog.flush()
