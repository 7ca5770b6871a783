"""`visindigo config example`: a commented config.toml written from the schema, so it cannot drift from it.

Each setting is one line `#key = value` under a `# description` line: removing the `#` of a setting uses it
at its example value, and removing every such `#` gives a config that loads without a problem (a test does
exactly that). Named tables (`[providers.<id>]`, `[skills.<name>]`, `[mcp_servers.<name>]`) get one example
entry each. A setting that replaces another (`x-instead-of`) is shown as a comment only, so the example never
holds both.
"""

from __future__ import annotations

from typing import Any

import tomlkit

from .schema import CONFIG_SCHEMA

#: The name of the example entry of each named table.
EXAMPLE_NAMES = {"providers": "local", "skills": "terse", "mcp_servers": "time"}

_HEADER = """\
# Visindigo configuration: every setting, with what it does (generated from the schema by
# `visindigo config example`). A line "#key = value" is a setting at an example value: remove its "#" to use
# it. Everything is optional. Save as the file `visindigo config path` names.
"""


def example_config() -> str:
    """The whole commented example."""
    lines = [_HEADER]
    _table(CONFIG_SCHEMA, (), lines)
    return "\n".join(lines).rstrip() + "\n"


def _table(schema: dict[str, Any], path: tuple[str, ...], lines: list[str]) -> None:
    """The keys of one table: plain values first, then sub-tables, then arrays of tables (TOML's order)."""
    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    plain = [(k, s) for k, s in properties.items() if not is_table(s, path) and not is_table_array(s)]
    tables = [(k, s) for k, s in properties.items() if is_table(s, path)]
    arrays = [(k, s) for k, s in properties.items() if is_table_array(s)]
    for key, sub in plain:
        _describe(sub, lines)
        line = f"{_key(key)} = {toml_value(_example(sub))}"
        instead = sub.get("x-instead-of")
        lines.append(f"# or, instead of {instead}: {line}" if instead else f"#{line}")
    for key, sub in tables:
        lines.append("")
        if sub.get("x-alias-of"):  # another spelling of a table shown in full: named, not repeated
            lines.append(f"# [{_dotted((*path, key))}] is read like [{sub['x-alias-of']}] (other clients' spelling)")
            continue
        _describe(sub, lines)
        named = sub.get("additionalProperties")
        if isinstance(named, dict) and "properties" in named:
            entry = (*path, key, EXAMPLE_NAMES.get(key, "example"))
            lines.append(f"#[{_dotted(entry)}]")
            _table(named, entry, lines)
        else:
            lines.append(f"#[{_dotted((*path, key))}]")
            if "properties" in sub:  # its keys come with their own descriptions and examples
                _table(sub, (*path, key), lines)
            else:
                for name, value in (_example(sub) or {}).items():
                    lines.append(f"#{_key(name)} = {toml_value(value)}")
    for key, sub in arrays:
        lines.append("")
        _describe(sub, lines)
        lines.append(f"#[[{_dotted((*path, key))}]]")
        _table(sub["items"], (*path, key), lines)


def is_table(schema: dict[str, Any], path: tuple[str, ...]) -> bool:
    """A section of its own: an object with known properties, a table of named entries, or a top-level map.

    Public, like `is_table_array` and `toml_value`, because the docs' configuration reference (docs/hooks)
    lays the schema out by the same rules, so the reference and the example always agree."""
    if schema.get("type") != "object":
        return False
    named = schema.get("additionalProperties")
    return "properties" in schema or (isinstance(named, dict) and "properties" in named) or not path


def is_table_array(schema: dict[str, Any]) -> bool:
    items = schema.get("items")
    return schema.get("type") == "array" and isinstance(items, dict) and "properties" in items


def _describe(schema: dict[str, Any], lines: list[str]) -> None:
    description = schema.get("description")
    if description:
        lines.append(f"# {description}")


def _example(schema: dict[str, Any]) -> Any:
    examples = schema.get("examples") or [None]
    return examples[0]


def _key(name: str) -> str:
    return tomlkit.key(name).as_string()


def _dotted(path: tuple[str, ...]) -> str:
    return ".".join(_key(part) for part in path)


def toml_value(value: Any) -> str:
    """`value` as TOML writes it (a table inline)."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        table.update(value)
        return str(table.as_string()).strip()
    return str(tomlkit.item(value).as_string())
