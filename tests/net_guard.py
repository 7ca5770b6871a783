"""The suite's guard against the internet: every non-loopback connection attempt is blocked and fails the run.

Inside a guarded process an audit hook on `socket.connect` and `socket.getaddrinfo` refuses any address that
is not loopback (or a Unix socket) and records it in the session's record folder, one file per process
(`<pid>.log`); the pytest process that owns the session (the only one, or pytest-xdist's controller) reads the
folder at the end and fails the run when anything was recorded, whichever process tried.

The servers the tests start are other processes, and MCP stdio servers get only an allow-list of environment
variables (PYTHONPATH is not on it), so an injected sitecustomize would not reach them. Instead, for the
session, a `.pth` file in this interpreter's site-packages imports this module in every Python process of the
environment; the hook is installed only in processes descending from the running pytest (checked through
/proc), so a `.pth` left behind by a killed session stays inert. When sessions nest (a test that runs pytest),
a process records into the nearest session above it. pytest-xdist's workers descend from the controller, so
the `.pth` guards them (and everything they start) like any child.

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
import tempfile
from pathlib import Path
from typing import Any

#: Files in site-packages are per session (`<pid>` of pytest): two sessions at once must not remove each other's.
PREFIX = "_visindigo_net_guard_"
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}
#: The session's record folder, for the pytest-xdist workers it starts (they inherit the environment).
FOLDER_VARIABLE = "VISINDIGO_NET_GUARD_DIR"

#: What this process refused (kept also when the record folder cannot be written).
refused: list[str] = []
_folder: str | None = None
_installed = False


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


def record_file(folder: Path, pid: int | None = None) -> Path:
    """Where process `pid` (this one by default) records what it refused: only that process writes it."""
    return folder / f"{os.getpid() if pid is None else pid}.log"


def _refuse(what: str) -> None:
    refused.append(what)
    if _folder:
        with contextlib.suppress(OSError), open(record_file(Path(_folder)), "a", encoding="utf-8") as log:
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


def install(folder: str | None) -> None:
    """Guard this process; refusals are recorded in `folder` (this process's own file there)."""
    global _folder, _installed
    _folder, _installed = folder, True
    sys.addaudithook(_hook)


def installed_guard() -> Any:
    """The guard module whose hook is installed in this process (this one, or the copy a session's `.pth`
    imported at the start of the process), or None."""
    for name, module in list(sys.modules.items()):
        if (name == __name__ or name.startswith(PREFIX)) and getattr(module, "_installed", False):
            return module
    return None


def guarded() -> bool:
    return installed_guard() is not None


# --- the session: a .pth that guards every Python process of this environment that pytest started ----------


def _site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def _session_files(pid: int, site: Path | None = None) -> tuple[Path, Path, Path]:
    """The `.pth`, the module it imports and the marker naming the session's pytest and record folder."""
    site = site or _site_packages()
    name = f"{PREFIX}{pid}"
    return site / f"{name}.pth", site / f"{name}.py", site / f"{name}.json"


def start_session() -> Path:
    """Guard this process and, through a `.pth`, every Python process it starts (directly or not); the record
    folder, which `end_session` reads."""
    folder = Path(tempfile.mkdtemp(prefix="visindigo-net-guard-"))
    os.environ[FOLDER_VARIABLE] = str(folder)
    outer = installed_guard()
    if outer is None:
        install(str(folder))
    else:  # a session inside a session (a test running pytest): this process records into its own session
        outer._folder = str(folder)
    _remove_stale_sessions()
    pth, module, marker = _session_files(os.getpid())
    try:
        marker.write_text(json.dumps({"pid": os.getpid(), "log": str(folder)}), encoding="utf-8")
        shutil.copyfile(Path(__file__), module)
        pth.write_text(f"import {module.stem}; {module.stem}.guard_if_under_pytest()\n")
    except OSError as error:  # a read-only environment: the test process is still guarded
        print(f"net guard: child processes are not guarded ({error})", file=sys.stderr)
    return folder


def start_worker() -> None:
    """A pytest-xdist worker: the `.pth` guarded it at its start; without one (a read-only environment) it
    guards itself, recording into the session's folder."""
    if not guarded():
        install(os.environ.get(FOLDER_VARIABLE))


def end_session(folder: Path) -> list[str]:
    """Remove the `.pth`; every attempt recorded in the session, by any process (the record folder goes)."""
    for path in _session_files(os.getpid()):
        with contextlib.suppress(OSError):
            path.unlink()
    attempts = read_records(folder)
    guard = installed_guard()
    if not attempts and guard is not None and guard.refused and not record_file(folder).exists():
        attempts = [f"test process: {what}" for what in guard.refused]  # the folder could not be written
    shutil.rmtree(folder, ignore_errors=True)
    return attempts


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
    """This process's parents, nearest first, read from /proc (Linux; elsewhere children are not guarded)."""
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
    """Run by each session's `.pth` at every start of this environment's Python: the session nearest above this
    process (if any) guards it, so that nested sessions each get their own processes' attempts."""
    ancestors = _ancestors()
    nearest: tuple[int, str] | None = None
    for path in Path(__file__).parent.glob(f"{PREFIX}*.json"):
        try:
            marker = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if marker.get("pid") in ancestors:
            rank = ancestors.index(marker["pid"])
            if nearest is None or rank < nearest[0]:
                nearest = (rank, path.stem)
    if nearest is not None and nearest[1] == Path(__file__).stem and not guarded():
        marker = json.loads(Path(__file__).with_suffix(".json").read_text(encoding="utf-8"))
        install(str(marker.get("log") or ""))


def read_records(folder: Path) -> list[str]:
    """Every attempt recorded in `folder`, by every process of the session."""
    lines: list[str] = []
    for path in sorted(folder.glob("*.log")):
        with contextlib.suppress(OSError):
            lines += [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines


def session_folder() -> Path | None:
    """The running session's record folder (in the test process, a worker or a child that kept the environment)."""
    folder = os.environ.get(FOLDER_VARIABLE)
    return Path(folder) if folder else None


def forget(marker: str) -> None:
    """Take a test's own deliberate attempts (the lines holding `marker`) out of the session's record, so they
    do not fail the run. Only files holding such a line are rewritten: those of this process or of a child of
    it that has ended, so no other process is writing them."""
    guard = installed_guard()
    if guard is not None:
        guard.refused[:] = [what for what in guard.refused if marker not in what]
    folder = session_folder()
    if folder is None:
        return
    for path in folder.glob("*.log"):
        with contextlib.suppress(OSError):
            lines = path.read_text(encoding="utf-8").splitlines()
            if any(marker in line for line in lines):
                path.write_text("".join(f"{line}\n" for line in lines if marker not in line), encoding="utf-8")


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
