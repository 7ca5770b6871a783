"""`${VAR}` and `${VAR:-default}` references in settings that may carry secrets.

Settings are stored exactly as written, so `"Authorization": "Bearer ${GITHUB_TOKEN}"` lands in a dialog, a config
file or an export as a reference, never as the token. Expansion happens only at the moment a value is used (an MCP
server starts, a provider sends a request), and the values it produced are reported so error texts can be scrubbed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: `${NAME}` or `${NAME:-default}`, NAME as in POSIX shells; VS Code's `${env:NAME}` is read the same way.
_REFERENCE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class UnsetVariable(ValueError):
    """A `${VAR}` without a default names a variable that is not set."""


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
