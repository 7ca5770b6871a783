"""The quick config check agrees with jsonschema, so skipping jsonschema for a valid config changes nothing."""

from __future__ import annotations

import copy
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from visindigo.engine.config.quick_check import Unsupported, conforms
from visindigo.engine.config.schema import CONFIG_SCHEMA, CREDENTIALS_SCHEMA
from visindigo.engine.config.validate import validate
from visindigo.engine.paths import Paths

from .conftest import documented_example, write

#: Values of every TOML kind, with the ones jsonschema treats specially: true is not 1, 2.0 is an integer,
#: and numbers and strings at the edges of the schema's bounds, lengths and patterns.
POOL: list[Any] = [
    True, False, 0, 1, -1, 60, 61, 1000, 1001, 1023, 1024, 0.0, 0.4, 0.5, 2.0, 2.5, 60.0, 60.5,
    "", "x", "é", "openai", "anthropic", "scripted", "ask", "allow", "stdio", "text", "tools",
    "read_only", "warning", "handshake", "vim", "cells",
    "http://h", "https://a.b/v1", "http://", "no url", "OPENAI_API_KEY", "sk-not!", "ctrl+s",
    [], ["x"], [1], {}, {"id": "m"},
]  # fmt: skip


def _jsonschema_says(document: Any, schema: dict[str, Any]) -> bool:
    return not any(jsonschema.Draft202012Validator(schema).iter_errors(document))


_POOLS: dict[tuple[int, bool], list[Any]] = {}


def _pool(schema: dict[str, Any], valid: bool) -> list[Any]:
    """The pool's values that `schema` accepts (or rejects: then near misses of the right type come first)."""
    key = (id(schema), valid)
    if key not in _POOLS:
        found = [value for value in POOL if _jsonschema_says(value, schema) == valid]
        if not valid and "type" in schema:
            found.sort(key=lambda value: not _near_miss(value, schema))
        _POOLS[key] = found
    return _POOLS[key]


def _near_miss(value: Any, schema: dict[str, Any]) -> bool:
    """A value of the right type that the schema still rejects: what only the finer keywords catch."""
    return "type" in schema and _jsonschema_says(value, {"type": schema["type"]})


def valid_documents(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for `schema`, built from its structure with edge values at the leaves."""
    kind = schema.get("type")
    if kind == "array":
        return st.lists(valid_documents(schema["items"]), max_size=2)
    if kind == "object":
        return _valid_object(schema)
    return st.sampled_from(_pool(schema, True))


@st.composite
def _valid_object(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    named = schema.get("properties", {})
    required = set(schema.get("required", []))
    if "anyOf" in schema:
        required |= set(draw(st.sampled_from(schema["anyOf"]))["required"])
    document = {}
    for key, sub in named.items():
        if key in required or draw(st.booleans()):
            document[key] = draw(valid_documents(sub))
    if "if" in schema and _jsonschema_says(document, schema["if"]):
        for key in schema["then"].get("required", []):
            document.setdefault(key, draw(valid_documents(named[key])))
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for name in draw(st.lists(st.sampled_from(["one", "two.x", "3"]), max_size=2, unique=True)):
            document.setdefault(name, draw(valid_documents(extra)))
    return document


def _sites(value: Any, schema: dict[str, Any], path: tuple[Any, ...] = ()) -> dict[str, list[Any]]:
    """Every place one mistake can go, by kind: a value (path, its schema), a key that matters (path), a name."""
    sites: dict[str, list[Any]] = {"value": [(path, schema)], "drop": [], "name": []}
    if isinstance(value, dict):
        named = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        needed = {*schema.get("required", []), *schema.get("then", {}).get("required", [])}
        needed |= {key for branch in schema.get("anyOf", []) for key in branch.get("required", [])}
        for key, item in value.items():
            sub = named.get(key, extra)
            if isinstance(sub, dict):
                for kind, found in _sites(item, sub, (*path, key)).items():
                    sites[kind] += found
            if key in needed:
                sites["drop"].append((*path, key))
        if "propertyNames" in schema:
            sites["name"].append((path, extra))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for kind, found in _sites(item, schema["items"], (*path, index)).items():
                sites[kind] += found
    return sites


def _at(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


@st.composite
def documents(draw: st.DrawFn, schema: dict[str, Any]) -> Any:
    """A valid document with, most of the time, exactly one mistake in it: a near-miss value anywhere, a
    needed key taken away, or an empty table name. One mistake in an otherwise valid document is what tells
    a checker that overlooks that kind of mistake apart from jsonschema."""
    document = draw(valid_documents(schema))
    sites = {kind: found for kind, found in _sites(document, schema).items() if found}
    kind = draw(st.sampled_from([*sites, "value", "none"]))  # the first ones come up most
    if kind == "value":
        near_first = sorted(sites["value"], key=lambda site: not _near_miss(_pool(site[1], False)[0], site[1]))
        path, sub = draw(st.sampled_from(near_first))
        bad = draw(st.sampled_from(_pool(sub, False)))
        if not path:
            return bad
        _at(document, path[:-1])[path[-1]] = bad
    elif kind == "drop":
        path = draw(st.sampled_from(sites["drop"]))
        del _at(document, path[:-1])[path[-1]]
    elif kind == "name":
        path, extra = draw(st.sampled_from(sites["name"]))
        _at(document, path)[""] = draw(valid_documents(extra))
    return document


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(CONFIG_SCHEMA))
def test_the_quick_check_agrees_with_jsonschema_on_config_documents(document: dict[str, Any]) -> None:
    assert conforms(document, CONFIG_SCHEMA) == _jsonschema_says(document, CONFIG_SCHEMA)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_documents(CONFIG_SCHEMA))
def test_valid_config_documents_pass_the_quick_check(document: dict[str, Any]) -> None:
    assert _jsonschema_says(document, CONFIG_SCHEMA)
    assert conforms(document, CONFIG_SCHEMA)


@settings(max_examples=100, deadline=None)
@given(documents(CREDENTIALS_SCHEMA))
def test_the_quick_check_agrees_with_jsonschema_on_credentials(document: dict[str, Any]) -> None:
    assert conforms(document, CREDENTIALS_SCHEMA) == _jsonschema_says(document, CREDENTIALS_SCHEMA)


def full_document(schema: dict[str, Any]) -> Any:
    """A valid value that uses every property of `schema`, and one entry of each named table."""
    kind = schema.get("type")
    if kind == "array":
        return [full_document(schema["items"])]
    if kind != "object":
        return _pool(schema, True)[0]
    document = {key: full_document(sub) for key, sub in schema.get("properties", {}).items()}
    if isinstance(schema.get("additionalProperties"), dict):
        document["one"] = full_document(schema["additionalProperties"])
    return document


def every_single_mistake(document: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """`document` with one mistake, for every place and every near-miss value of the pool."""
    sites = _sites(document, schema)
    for path, sub in sites["value"]:
        for bad in _pool(sub, False):
            changed = copy.deepcopy(document)
            if not path:
                yield bad
                continue
            _at(changed, path[:-1])[path[-1]] = bad
            yield changed
    for path in sites["drop"]:
        changed = copy.deepcopy(document)
        del _at(changed, path[:-1])[path[-1]]
        yield changed
    for path, extra in sites["name"]:
        changed = copy.deepcopy(document)
        _at(changed, path)[""] = full_document(extra)
        yield changed


def test_every_single_mistake_in_a_full_config_is_judged_as_jsonschema_judges_it() -> None:
    document = full_document(CONFIG_SCHEMA)
    # `base_url` is required for openai/anthropic only: a scripted provider shows the other branch of "if".
    document["providers"]["scripted"] = {"kind": "scripted"}
    assert conforms(document, CONFIG_SCHEMA) and _jsonschema_says(document, CONFIG_SCHEMA)
    answers = [
        (conforms(changed, CONFIG_SCHEMA), _jsonschema_says(changed, CONFIG_SCHEMA))
        for changed in every_single_mistake(document, CONFIG_SCHEMA)
    ]
    assert len(answers) > 1000
    assert [mine for mine, theirs in answers] == [theirs for mine, theirs in answers]
    assert sum(theirs for mine, theirs in answers) >= 3  # some are fine: dropping one of "content" and "file"


def test_the_generated_documents_are_both_valid_and_invalid_often() -> None:
    """The agreement above means something only if both answers come up."""
    answers: list[bool] = []

    @settings(max_examples=150, deadline=None, database=None)
    @given(documents(CONFIG_SCHEMA))
    def collect(document: dict[str, Any]) -> None:
        answers.append(_jsonschema_says(document, CONFIG_SCHEMA))

    collect()
    assert answers.count(True) >= 5
    assert answers.count(False) >= 50


def test_the_documented_example_passes_the_quick_check() -> None:
    assert conforms(tomllib.loads(documented_example()), CONFIG_SCHEMA)


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        (True, {"type": "integer"}, False),
        (2.0, {"type": "integer"}, True),
        (2.5, {"type": "integer"}, False),
        (1, {"enum": [True]}, False),
        (1.0, {"enum": [1]}, True),
        ("é", {"minLength": 2}, False),
        (0.5, {"minimum": 0.5}, True),
        (0, {"exclusiveMinimum": 0}, False),
        (True, {"minimum": 5}, True),  # bounds apply to numbers only, and true is not a number
        ("x http://a", {"pattern": "^https?://"}, False),
        ({"kind": "openai"}, CONFIG_SCHEMA["properties"]["providers"]["additionalProperties"], False),
        ({"kind": "scripted"}, CONFIG_SCHEMA["properties"]["providers"]["additionalProperties"], True),
        ({}, CONFIG_SCHEMA["properties"]["skills"]["additionalProperties"], False),
    ],
)
def test_edge_cases_match_jsonschema(value: Any, schema: dict[str, Any], expected: bool) -> None:
    assert conforms(value, schema) is expected
    assert _jsonschema_says(value, schema) is expected


def test_a_keyword_it_does_not_know_is_left_to_jsonschema(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"n": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}}
    with pytest.raises(Unsupported):
        conforms({"n": 1}, schema)
    valid, problems = validate({"n": 1.5, "m": 2}, schema, tmp_path / "c.toml")
    assert valid == {"m": 2}
    assert [p.key for p in problems] == ["n"]


def test_a_valid_config_loads_without_importing_jsonschema(paths: Paths) -> None:
    """Start-up with a valid config must not pay for jsonschema; a config with a mistake still gets its messages."""
    write(paths, documented_example())
    bad = paths.config_file.with_name("bad.toml")
    bad.write_text('theme = ""\n[providers.x]\nkind = "openai"\n', encoding="utf-8")
    code = (
        "import sys\n"
        "from visindigo.engine.config import load_config\n"
        f"config, problems = load_config({str(paths.config_file)!r})\n"
        "print(len(config.providers()), len(problems), 'jsonschema' in sys.modules)\n"
        f"config, problems = load_config({str(bad)!r})\n"
        "print(sorted(p.key for p in problems), 'jsonschema' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    first, second = result.stdout.splitlines()
    assert first.split()[0] == "4"
    assert first.split()[2] == "False"
    assert second == "['providers.x', 'theme'] True"
