"""Validation that keeps what is valid: each problem removes only the smallest entry that contains it.

A mistyped model drops that model, a broken provider that provider, a wrong `theme` only the theme — the app
starts with everything else, and the user reads one line per problem.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from .problems import ConfigProblem, describe, dotted
from .quick_check import Unsupported, conforms

#: Tables whose entries are named by the user (`[providers.<id>]`): a problem drops that one entry.
NAMED_SECTIONS = ("providers", "skills", "mcp_servers", "mcpServers", "keys", "run", "ui", "user", "tools")


def prune_unit(path: tuple[Any, ...]) -> tuple[Any, ...]:
    """The key path that is dropped for a problem at `path`: a model, a provider setting, or a named entry."""
    if len(path) >= 3 and path[0] == "providers" and path[2] in ("models", "settings"):
        return path[:4]
    if len(path) >= 2 and path[0] in NAMED_SECTIONS:
        return path[:2]
    return path[:1]


def validate(
    document: dict[str, Any], schema: dict[str, Any], file: Path
) -> tuple[dict[str, Any], list[ConfigProblem]]:
    """The document without its invalid entries, and one problem per violation (the first per entry).

    A document the quick check accepts skips jsonschema, whose import alone is a fifth of start-up.
    """
    try:
        valid = conforms(document, schema)
    except Unsupported:
        valid = False
    if valid:
        return drop_removed_items(copy.deepcopy(document)), []
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
    problems: list[ConfigProblem] = []
    units: list[tuple[Any, ...]] = []
    for error in errors:
        path = tuple(error.absolute_path)
        if error.validator == "propertyNames":
            path = (*path, "")
        unit = prune_unit(path)
        if any(unit[: len(u)] == u for u in units):
            continue
        units.append(unit)
        dropped = dotted(unit) or "the file"
        note = f" ({dropped} is ignored until this is fixed)" if unit else ""
        problems.append(ConfigProblem(file, dotted(path), describe(error) + note))
    pruned = copy.deepcopy(document)
    for unit in units:
        remove(pruned, unit)
    return drop_removed_items(pruned), problems


def remove(document: dict[str, Any], path: tuple[Any, ...]) -> None:
    """Delete the value at `path`; list items are replaced by None and filtered, so indexes stay valid."""
    if not path:
        document.clear()
        return
    parent: Any = document
    for part in path[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return
    last = path[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        parent[last] = None


def drop_removed_items(value: Any) -> Any:
    """Filter the None placeholders `remove` left in lists."""
    if isinstance(value, dict):
        return {k: drop_removed_items(v) for k, v in value.items()}
    if isinstance(value, list):
        return [drop_removed_items(v) for v in value if v is not None]
    return value
