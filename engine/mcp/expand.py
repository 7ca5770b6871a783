"""`${VAR}` references in MCP server settings, and the environment a stdio server is given.

A server config is stored exactly as written, so `"Authorization": "Bearer ${GITHUB_TOKEN}"` lands in a
dialog or an export as a reference, never as the token. Expansion happens only here, at the moment a
server starts, and the values it produced are remembered so that any error text can be scrubbed of them.

The child process does not inherit the whole environment of the app (which holds provider API keys): it
gets a short allow-list of harmless variables plus what its config names explicitly.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..mcp_server import MCPServer

#: `${NAME}` or `${NAME:-default}`, NAME as in POSIX shells; VS Code's `${env:NAME}` is read the same way.
_REFERENCE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

if sys.platform == "win32":  # pragma: no cover - documented for completeness, tested on POSIX
    SAFE_ENV_VARS: tuple[str, ...] = (
        "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "COMSPEC", "WINDIR",
    )  # fmt: skip
else:
    #: What a stdio server inherits from the app without being told: enough to find programs, a home
    #: directory, a locale and a temp dir; nothing that could be a credential.
    SAFE_ENV_VARS = ("HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")


class UnsetVariable(ValueError):
    """A `${VAR}` without a default names a variable that is not set."""


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


def expand(text: str, environ: Mapping[str, str], *, where: str = "", found: set[str] | None = None) -> str:
    """Replace `${VAR}` / `${VAR:-default}` in `text`.

    `${VAR:-default}` uses the default when VAR is unset or empty (as shells do); `${VAR}` of a variable set
    to "" gives "". A reference without a default to an unset variable raises `UnsetVariable` naming the
    variable and `where` it was used — but never a value. Expanded values are added to `found` so callers
    can redact them later.
    """

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name, "")
        if value:
            if found is not None:
                found.add(value)
            return value
        if default is not None:
            return default
        if name in environ:
            return ""
        place = f" (used in {where})" if where else ""
        raise UnsetVariable(
            f"environment variable {name} is not set{place}; set it, or write ${{{name}:-default}} to give a default"
        )

    return _REFERENCE.sub(replace, text)


def references(text: str) -> list[str]:
    """The variable names `text` refers to, in order (for showing which variables a server needs)."""
    return [match.group(1) for match in _REFERENCE.finditer(text)]


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
