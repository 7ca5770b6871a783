"""`visindigo config example` is generated from the schema: complete, valid, and unable to drift."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from typing import Any

from visindigo.engine.config import load_config
from visindigo.engine.config.example import example_config
from visindigo.engine.config.schema import CONFIG_SCHEMA
from visindigo.engine.paths import Paths

from .conftest import write

Property = tuple[tuple[str, ...], dict[str, Any]]


def schema_properties(schema: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[Property]:
    for key, sub in schema.get("properties", {}).items():
        yield (*path, key), sub
        yield from schema_properties(sub, (*path, key))
        named = sub.get("additionalProperties")
        if isinstance(named, dict):
            yield from schema_properties(named, (*path, key, "*"))
        items = sub.get("items")
        if isinstance(items, dict):
            yield from schema_properties(items, (*path, key, "[]"))


def uncommented(text: str) -> str:
    """The example with every setting line ("#key = value", "#[table]") switched on."""
    return "\n".join(line[1:] if re.match(r"#[^\s#]", line) else line for line in text.splitlines())


def test_every_schema_property_has_a_description_and_an_example() -> None:
    missing = [".".join(path) for path, sub in schema_properties(CONFIG_SCHEMA)
               if not sub.get("description") or not sub.get("examples")]
    assert missing == []


def test_every_schema_property_is_in_the_example() -> None:
    text = example_config()
    for path, _ in schema_properties(CONFIG_SCHEMA):
        key = path[-1]
        assert re.search(rf"(^|[#:\s.\[]){re.escape(key)}( = |\]|\.)", text, re.MULTILINE), ".".join(path)


def test_the_example_loads_without_problems_as_it_is_and_switched_on(paths: Paths) -> None:
    text = example_config()
    assert tomllib.loads(text) == {}  # all commented: using it as config.toml changes nothing
    write(paths, uncommented(text))
    config, problems = load_config(paths)
    assert problems == []
    assert config.theme == "visindigo-dark" and config.provider_ids == ["local"]
    assert [s.name for s in config.mcp_servers] == ["time"] and [s.name for s in config.skills] == ["terse"]
    assert config.data["providers"]["local"]["models"][0]["id"] == "qwen3-8b"
    assert config.enabled_tools == ["weather"]


def test_a_new_property_without_documentation_would_fail(monkeypatch: Any) -> None:
    """The guard itself: a property added without description/example is found."""
    from visindigo.engine.config import schema

    patched = {**schema.CONFIG_SCHEMA, "properties": {**schema.CONFIG_SCHEMA["properties"], "new": {"type": "string"}}}
    missing = [p for p, sub in schema_properties(patched) if not sub.get("description")]
    assert ("new",) in missing
