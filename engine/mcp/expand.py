"""Resolving an MCP server's `${VAR}` references (engine/env_refs.py), and the environment a stdio server is given.

A server config is stored exactly as written; references are expanded only here, at the moment a server
starts, and the values they produced are remembered so that any error text can be scrubbed of them.

The child process does not inherit the whole environment of the app (which holds provider API keys): it
gets a short allow-list of harmless variables plus what its config names explicitly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..env_refs import UnsetVariable, expand, references
from ..mcp_server import MCPServer

__all__ = [
    "SAFE_ENV_VARS",
    "ResolvedServer",
    "UnsetVariable",
    "child_environment",
    "expand",
    "redact",
    "references",
    "resolve",
]

if sys.platform == "win32":  # pragma: no cover - documented for completeness, tested on POSIX
    SAFE_ENV_VARS: tuple[str, ...] = (
        "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "COMSPEC", "WINDIR",
    )  # fmt: skip
else:
    #: What a stdio server inherits from the app without being told: enough to find programs, a home
    #: directory, a locale and a temp dir; nothing that could be a credential.
    SAFE_ENV_VARS = ("HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")


@dataclass(frozen=True, slots=True)
class ResolvedServer:
    """A server config with every reference expanded: only ever held in memory while starting it."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str]
    cwd: str
    url: str
    headers: dict[str, str]
    #: Values that came from the environment through a reference; error texts are scrubbed of them.
    secrets: frozenset[str] = field(default_factory=frozenset)


def resolve(server: MCPServer, environ: Mapping[str, str] | None = None) -> ResolvedServer:
    """Expand every reference in the parts of `server` that can hold one (command, args, env, cwd, url, headers)."""
    source = os.environ if environ is None else environ
    found: set[str] = set()
    name = server.name

    def one(text: str, where: str) -> str:
        return expand(text, source, where=f"MCP server {name!r} {where}", found=found)

    return ResolvedServer(
        command=one(server.command, "command"),
        args=tuple(one(arg, f"args[{i}]") for i, arg in enumerate(server.args)),
        env={key: one(value, f"env {key}") for key, value in server.env.items()},
        cwd=os.path.expanduser(one(server.cwd, "cwd")) if server.cwd else "",
        url=one(server.url, "url"),
        headers={key: one(value, f"header {key}") for key, value in server.headers.items()},
        secrets=frozenset(value for value in found if len(value) >= 4),
    )


def child_environment(configured: Mapping[str, str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a stdio server: the safe allow-list from `environ`, then its configured env on top."""
    source = os.environ if environ is None else environ
    env = {key: source[key] for key in SAFE_ENV_VARS if key in source and not source[key].startswith("()")}
    env.update(configured)
    return env


def redact(text: str, secrets: frozenset[str] | set[str]) -> str:
    """`text` with every expanded value replaced by `***`, longest first so overlapping values vanish whole."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
