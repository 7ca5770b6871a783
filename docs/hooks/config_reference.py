"""The configuration reference page, written from the config schema at build time (see site_hooks.py).

The schema (engine/config/schema.py) is also what checks a config.toml and what `visindigo config example`
prints, so the page cannot describe a setting the app does not read, nor miss one it does. The tables are laid
out by the example's own rules (`is_table`, `is_table_array`), so the two agree on what is a section.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from visindigo.engine.config.example import example_config, is_table, is_table_array, toml_value
from visindigo.engine.config.schema import CONFIG_SCHEMA

#: The placeholder for the name of an entry of a named table (`[providers.<id>]`).
ENTRY_NAMES = {"providers": "<id>", "skills": "<name>", "mcp_servers": "<name>", "mcpServers": "<name>"}

_INTRO = """\
# Configuration reference

Every setting of `config.toml`, generated from the schema the app checks the file against — the same schema
`visindigo config example` prints its commented example from (at the end of this page). Everything is
optional; keys the app does not know are kept when it saves. How the file is read, checked and saved is in
[Configuration](../configuration.md).
"""


def config_reference(schema: dict[str, Any] = CONFIG_SCHEMA) -> str:
    """The whole page: one section per table, one row per key, then the generated example."""
    parts = [_INTRO]
    for heading, description, rows in tables(schema):
        title = f"`{heading}`" if heading.startswith("[") else heading
        parts.append(f"## {title} {{#{anchor(heading)}}}\n")
        if description:
            parts.append(f"{_sentence(description)}\n")
        if rows:
            parts.append("| key | type | example | what it does |\n|---|---|---|---|")
            parts.extend(f"| `{key}` | {kind} | {example} | {text} |" for key, kind, example, text in rows)
            parts.append("")
    parts.append("## The generated example\n")
    parts.append("`visindigo config example` prints this (remove a line's `#` to use that setting):\n")
    parts.append(f"```toml\n{example_config()}```\n")
    return "\n".join(parts)


Row = tuple[str, str, str, str]


def tables(schema: dict[str, Any]) -> Iterator[tuple[str, str, list[Row]]]:
    """(heading, description, rows) for the top level and every table below it, in the example's order."""
    yield from _tables(schema, (), "Top level", "the keys before any table")


def _tables(schema: dict[str, Any], path: tuple[str, ...], heading: str, description: str) -> Iterator[Any]:
    properties: dict[str, dict[str, Any]] = schema.get("properties", {})
    plain = [(k, s) for k, s in properties.items() if not is_table(s, path) and not is_table_array(s)]
    rows = [(key, _kind(sub), _example(sub), _what(sub)) for key, sub in plain]
    map_values = schema.get("additionalProperties")
    if not properties and isinstance(map_values, dict):  # a free map such as [keys]: one row for all its entries
        rows.append(("<name>", _kind(map_values), _example(schema), "any number of entries"))
    yield heading, description, rows
    for key, sub in properties.items():
        if is_table(sub, path):
            yield from _table(key, sub, path)
    for key, sub in properties.items():
        if is_table_array(sub):
            entry = (*path, key)
            yield from _tables(sub["items"], entry, f"[[{'.'.join(entry)}]]", _text(sub))


def _table(key: str, sub: dict[str, Any], path: tuple[str, ...]) -> Iterator[Any]:
    if sub.get("x-alias-of"):
        yield f"[{'.'.join((*path, key))}]", f"{_text(sub)}: every key of [{sub['x-alias-of']}] applies", []
        return
    named = sub.get("additionalProperties")
    if isinstance(named, dict) and "properties" in named:
        entry = (*path, key, ENTRY_NAMES.get(key, "<name>"))
        yield from _tables(named, entry, f"[{'.'.join(entry)}]", _text(sub))
    else:
        entry = (*path, key)
        yield from _tables(sub, entry, f"[{'.'.join(entry)}]", _text(sub))


def anchor(heading: str) -> str:
    """A table's link target: its dotted path without the entry placeholders (`providers-models`)."""
    names = [part for part in heading.strip("[]").split(".") if part and not part.startswith("<")]
    return "-".join(names) if heading.startswith("[") else "top-level"


def _kind(schema: dict[str, Any]) -> str:
    """The type as a reader wants it: "integer, 1–1000", "one of `ask`, `allow`", "list of text"."""
    if "enum" in schema:
        return "one of " + ", ".join(f"`{value}`" for value in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        items = schema.get("items", {})
        return f"list of {_parenthesised(_kind(items))}" if items else "list"
    if kind == "object":
        values = schema.get("additionalProperties")
        return f"table of {_parenthesised(_kind(values))}" if isinstance(values, dict) and values else "table"
    limits = []
    if "minimum" in schema and "maximum" in schema:
        limits.append(f"{schema['minimum']}–{schema['maximum']}")
    elif "minimum" in schema:
        limits.append(f"≥ {schema['minimum']}")
    elif "exclusiveMinimum" in schema:
        limits.append(f"> {schema['exclusiveMinimum']}")
    if schema.get("minLength"):
        limits.append("not empty")
    if "pattern" in schema:
        limits.append("URL" if schema["pattern"].startswith("^https?") else "a name")
    return ", ".join([kind, *limits])


def _parenthesised(kind: str) -> str:
    return f"({kind})" if "," in kind and not kind.startswith("one of") else kind


def _example(schema: dict[str, Any]) -> str:
    examples = schema.get("examples")
    if not examples:
        return ""
    return f"`{toml_value(examples[0])}`".replace("|", "\\|")


def _what(schema: dict[str, Any]) -> str:
    text = _text(schema)
    instead = schema.get("x-instead-of")
    return f"{text} (instead of `{instead}`)" if instead else text


def _text(schema: dict[str, Any]) -> str:
    text = str(schema.get("description", ""))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")
