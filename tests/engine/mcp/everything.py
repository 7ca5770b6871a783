"""The MCP reference server `@modelcontextprotocol/server-everything` (npm), installed once for the tests.

It is the protocol's own demonstration of every feature (URL elicitation through a -32042 error, text blobs,
sampling with a temperature, a form with every field kind), so the client is tested against what the SDK
authors ship, not only against servers written here. The version is pinned: its tools' behaviour is what the
tests assert. `npm install` runs once into pytest's cache folder (under a lock, so parallel workers wait for
one install); after that the server starts from disk and reaches nothing beyond this machine.

`python -m tests.engine.mcp.everything` (from the repository root) installs it into that cache folder ahead of
a run; CI does, so no test waits on the registry.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import sys
from pathlib import Path

from visindigo.engine import MCPServer

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"
#: The folder under pytest's cache (`.pytest_cache/d/…`) that holds the install.
CACHE_NAME = f"server-everything-{VERSION}"
ROOT = Path(__file__).resolve().parents[3]
NO_NODE = "node is not installed (the MCP reference server server-everything runs on node; .ci/run installs it)"


class InstallFailed(Exception):
    """npm could not install the server; the message says why in one line."""


def entry_point(folder: Path) -> Path:
    return folder / "node_modules" / PACKAGE / "dist" / "index.js"


def ensure_installed(folder: Path) -> Path:
    """The server's `index.js` in `folder`, running `npm install` there first unless an install finished."""
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "installed"
    with open(folder / "install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker installing: wait for it, then use its install
        if done.exists() and entry_point(folder).exists():
            return entry_point(folder)
        npm = shutil.which("npm")
        if npm is None:
            raise InstallFailed(f"npm is not installed, so {PACKAGE} cannot be installed for the MCP tests")
        command = [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--no-save",
                   "--loglevel", "error", f"{PACKAGE}@{VERSION}"]  # fmt: skip
        finished = subprocess.run(command, capture_output=True, text=True, timeout=600)
        if finished.returncode != 0 or not entry_point(folder).exists():
            said = (finished.stderr.strip().splitlines() or ["no output"])[-1]
            raise InstallFailed(f"npm install {PACKAGE}@{VERSION} failed ({finished.returncode}): {said}")
        done.write_text(VERSION)
    return entry_point(folder)


def everything_server(index_js: Path, name: str = "ev", **settings: object) -> MCPServer:
    """server-everything over stdio, with `settings` passed to MCPServer."""
    node = shutil.which("node") or "node"
    settings.setdefault("timeout", 20.0)
    return MCPServer(name, command=node, args=(str(index_js), "stdio"), **settings)  # type: ignore[arg-type]


if __name__ == "__main__":
    try:
        print(ensure_installed(ROOT / ".pytest_cache" / "d" / CACHE_NAME))
    except InstallFailed as error:
        sys.exit(str(error))
