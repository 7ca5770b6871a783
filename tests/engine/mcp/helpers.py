"""Helpers for the MCP tests: the servers they start and how to see their processes."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from visindigo.engine import MCPServer

TOOLBOX = Path(__file__).parent / "servers" / "toolbox.py"


def toolbox(name: str = "toolbox", **settings: object) -> MCPServer:
    """The purpose-built test server over stdio, with `settings` passed to MCPServer."""
    settings.setdefault("timeout", 5.0)
    return MCPServer(name, command=sys.executable, args=(str(TOOLBOX),), **settings)  # type: ignore[arg-type]


def time_server(name: str = "time") -> MCPServer:
    return MCPServer(name, command=sys.executable, args=("-m", "mcp_server_time", "--local-timezone", "UTC"))


def child_pids() -> set[int]:
    """Live (non-zombie) processes whose parent is this test process."""
    me = os.getpid()
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ..." — comm may contain spaces, so split after the last ')'.
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[1]) == me:
            found.add(int(entry.name))
    return found


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


class ServerProcesses:
    """HTTP test servers started as processes on free 127.0.0.1 ports, logging to a folder; `stop_all` ends them."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, script: Path, *arguments: str) -> int:
        """Run `script PORT? arguments` — `{port}` in an argument is replaced — and wait until it listens."""
        port = free_port()
        argv = [sys.executable, str(script), *(a.replace("{port}", str(port)) for a in arguments)]
        log = open(self.log_dir / f"{script.stem}-{port}.log", "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(argv, stdout=log, stderr=log)
        log.close()
        self.processes.append(process)
        wait_for_port(port, process)
        return port

    def stop_all(self) -> None:
        for process in self.processes:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


async def until(condition: Callable[[], object], seconds: float = 20.0) -> None:
    """Wait until `condition()` holds (a server's answer, a screen, a notification), failing after `seconds`."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"still not true after {seconds:g} s")
