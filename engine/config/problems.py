"""Config problems: what is wrong, in which file, under which key — never with the value itself.

A value may be a secret (a key pasted into the wrong field), so messages describe the value's kind ("a
number") and never repeat it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..record import record

if TYPE_CHECKING:
    import jsonschema

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


@record(frozen=True, slots=True)
class ConfigProblem:
    """One problem found in a config file; `str()` is the message for the user."""

    file: Path
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.key}" if self.key else str(self.file)
        return f"{where}: {self.message}"


class ConfigError(Exception):
    """A config file cannot be written (or read for writing); the message names the file and the reason."""


def dotted(path: Iterable[Any]) -> str:
    """A key path as written in TOML: `providers."my.local".models[0].id`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            name = str(part)
            name = name if _BARE_KEY.match(name) else '"' + name.replace('"', '\\"') + '"'
            text += f".{name}" if text else name
    return text


def describe(error: jsonschema.ValidationError) -> str:
    """A message for a schema violation that says what is expected without quoting the value."""
    custom = error.schema.get("errorMessage") if isinstance(error.schema, dict) else None
    if isinstance(custom, str):
        return custom
    validator = error.validator
    expected: Any = error.validator_value
    if validator == "type":
        return f"expected {_type_words(expected)}, found {_kind(error.instance)}"
    if validator == "enum":
        return "must be one of " + ", ".join(repr(v) for v in expected)
    if validator == "required":
        missing = [k for k in expected if not (isinstance(error.instance, dict) and k in error.instance)]
        return "missing " + ", ".join(repr(k) for k in missing)
    if validator == "minLength":
        return "must not be empty"
    if validator in ("minimum", "exclusiveMinimum"):
        return f"must be {'at least' if validator == 'minimum' else 'more than'} {expected}"
    if validator in ("maximum", "exclusiveMaximum"):
        return f"must be {'at most' if validator == 'maximum' else 'less than'} {expected}"
    if validator == "pattern":
        return "is not in the expected form"
    if validator == "propertyNames":
        return "names must not be empty"
    return f"is not valid ({validator})"


def _type_words(expected: object) -> str:
    names = expected if isinstance(expected, list) else [expected]
    words = {
        "string": "text in quotes",
        "integer": "a whole number",
        "number": "a number",
        "boolean": "true or false",
        "array": "a list [...]",
        "object": "a table",
    }
    return " or ".join(words.get(str(n), str(n)) for n in names)


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
