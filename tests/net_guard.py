"""The suite's guard against the internet: every non-loopback connection attempt is blocked and fails the run.

Inside the test process an audit hook on `socket.connect` and `socket.getaddrinfo` refuses any address that is
not loopback (or a Unix socket) and records it; the root conftest fails the session when anything was recorded.

The servers the tests start are other processes, and MCP stdio servers get only an allow-list of environment
variables (PYTHONPATH is not on it), so an injected sitecustomize would not reach them. Instead, for the
session, a `.pth` file in this interpreter's site-packages imports this module in every Python process of the
environment; the hook is installed only in processes descending from the running pytest (checked through
/proc), so a `.pth` left behind by a killed session stays inert. Children record into the session's log file.

Node is not Python: mcp-server-fetch's readabilipy runs `npm install` when node and npm are on PATH, so the
fetch servers of the tests run with `no_npm_path()` (see `fetch_server_env`).
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import shutil
import socket
import sys
import sysconfig
from pathlib import Path
from typing import Any

#: Files in site-packages are per session (`<pid>` of pytest): two sessions at once must not remove each other's.
PREFIX = "_visindigo_net_guard_"
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}

#: What this process refused (the root conftest reads it at the end of the session).
refused: list[str] = []
_log_path: str | None = None


def is_loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    host = host.split("%", 1)[0]
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _refuse(what: str) -> None:
    refused.append(what)
    if _log_path:
        with contextlib.suppress(OSError), open(_log_path, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {sys.argv[:3]} {what}\n")
    raise PermissionError(f"the test suite's network guard refused {what} (only loopback is allowed)")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect":
        sock, address = args[0], args[1]
        family = getattr(sock, "family", None)
        inet = family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) and bool(address)
        if inet and not is_loopback(address[0]):
            _refuse(f"a connection to {address[0]}:{address[1] if len(address) > 1 else '?'}")
    elif event == "socket.getaddrinfo":
        host = args[0] if args else None
        if host is not None and not is_loopback(host):
            _refuse(f"a name lookup of {host!r}")


def install(log_path: str | None) -> None:
    """Guard this process; refusals are also appended to `log_path`."""
    global _log_path
    _log_path = log_path
    sys.addaudithook(_hook)


# --- the session: a .pth that guards every Python process of this environment that pytest started ----------


def _site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _session_files(pid: int) -> tuple[Path, Path, Path]:
    """The `.pth`, the module it imports and the marker naming the session's pytest and log."""
    site = _site_packages()
    name = f"{PREFIX}{pid}"
    return site / f"{name}.pth", site / f"{name}.py", site / f"{name}.json"


def start_session(log_path: Path) -> None:
    """Guard this process and, through a `.pth`, every Python process it starts (directly or not)."""
    install(str(log_path))
    _remove_stale_sessions()
    pth, module, marker = _session_files(os.getpid())
    try:
        marker.write_text(json.dumps({"pid": os.getpid(), "log": str(log_path)}), encoding="utf-8")
        shutil.copyfile(Path(__file__), module)
        pth.write_text(f"import {module.stem}; {module.stem}.guard_if_under_pytest()\n")
    except OSError as error:  # a read-only environment: the test process is still guarded
        print(f"net guard: child processes are not guarded ({error})", file=sys.stderr)


def end_session() -> None:
    for path in _session_files(os.getpid()):
        with contextlib.suppress(OSError):
            path.unlink()


def _remove_stale_sessions() -> None:
    """Files left by a session that was killed (its pytest is gone)."""
    for marker in _site_packages().glob(f"{PREFIX}*.json"):
        pid = marker.stem.removeprefix(PREFIX)
        if pid.isdigit() and not _alive(int(pid)):
            for path in _session_files(int(pid)):
                with contextlib.suppress(OSError):
                    path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _ancestors(limit: int = 30) -> list[int]:
    """This process's parents, read from /proc (Linux; elsewhere children are not guarded)."""
    pids = []
    pid = os.getpid()
    for _ in range(limit):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            break
        pid = int(stat[1])
        if pid <= 1:
            break
        pids.append(pid)
    return pids


def guard_if_under_pytest() -> None:
    """Run by the `.pth` at every start of this environment's Python: guard it when pytest is an ancestor."""
    try:
        marker = json.loads(Path(__file__).with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if marker.get("pid") in _ancestors():
        install(str(marker.get("log") or ""))


def read_log(log_path: Path) -> list[str]:
    try:
        return [line for line in log_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except OSError:
        return []


# --- servers that must not run npm ------------------------------------------------------------------------------


def no_npm_path(path: str | None = None) -> str:
    """PATH without the folders that hold `npm` or `node` (readabilipy would run `npm install` from them)."""
    folders = (path if path is not None else os.environ.get("PATH", "")).split(os.pathsep)
    kept = [
        folder
        for folder in folders
        if folder and not any((Path(folder) / tool).exists() for tool in ("npm", "node", "nodejs", "npx"))
    ]
    return os.pathsep.join(kept)


def fetch_server_env() -> dict[str, str]:
    """The environment of an mcp-server-fetch in a test: a PATH on which there is no npm or node."""
    return {"PATH": no_npm_path()}
