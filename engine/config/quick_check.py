"""A yes/no check of a config document against our schemas that does not import jsonschema.

Importing jsonschema (with referencing, attrs, rpds and its format checkers) costs about 40 ms, a fifth of
the app's whole start-up budget, and a valid config — the usual case — needs no error messages at all. So
loading asks this small checker first, and only a document it cannot vouch for goes to jsonschema, which
finds and explains the problems.

The checker implements exactly the keywords `engine.config.schema` uses, with jsonschema's Draft 2020-12
semantics (a test compares the two on generated documents). Any other keyword raises `Unsupported`, and the
caller then validates with jsonschema: the fast path can only be skipped, never wrong.
"""

from __future__ import annotations

import re
from typing import Any

#: Keywords that only annotate a schema; they never make an instance invalid.
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "title", "description", "errorMessage", "default", "examples", "x-instead-of", "x-alias-of"}
)
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "number": (int, float),
    "integer": (int, float),
}


class Unsupported(Exception):
    """The schema uses a keyword this checker does not implement; ask jsonschema."""


def conforms(instance: Any, schema: dict[str, Any]) -> bool:
    """True when `instance` is valid against `schema`; raises `Unsupported` when it cannot tell."""
    return all(_keyword(instance, schema, keyword, value) for keyword, value in schema.items())


def _keyword(instance: Any, schema: dict[str, Any], keyword: str, value: Any) -> bool:
    if keyword in _ANNOTATIONS or keyword in ("then", "else"):
        return True
    if keyword == "type":
        return any(_is_type(instance, name) for name in (value if isinstance(value, list) else [value]))
    if keyword == "enum":
        return any(_equal(instance, member) for member in value)
    if keyword == "anyOf":
        return any(conforms(instance, sub) for sub in value)
    if keyword == "if":
        branch = schema.get("then" if conforms(instance, value) else "else")
        return branch is None or conforms(instance, branch)
    if keyword in _OBJECT_KEYWORDS:
        return not isinstance(instance, dict) or _OBJECT_KEYWORDS[keyword](instance, schema, value)
    if keyword == "items":
        return not isinstance(instance, list) or all(conforms(item, value) for item in instance)
    if keyword == "minLength":
        return not isinstance(instance, str) or len(instance) >= value
    if keyword == "pattern":
        return not isinstance(instance, str) or re.search(value, instance) is not None
    if keyword in _BOUNDS:
        is_number = isinstance(instance, int | float) and not isinstance(instance, bool)
        return not is_number or _BOUNDS[keyword](instance, value)
    raise Unsupported(keyword)


def _is_type(instance: Any, name: str) -> bool:
    if name not in _TYPES:
        raise Unsupported(f"type {name}")
    if isinstance(instance, bool) and name != "boolean":
        return False
    if name == "integer" and isinstance(instance, float):
        return instance.is_integer()
    return isinstance(instance, _TYPES[name])


def _equal(instance: Any, member: Any) -> bool:
    """jsonschema's equality: True is not 1, and 1 is 1.0."""
    if isinstance(member, str) or isinstance(instance, str):
        return bool(instance == member)
    if isinstance(member, list | dict) or isinstance(instance, list | dict):
        raise Unsupported("enum of structured values")
    return isinstance(instance, bool) == isinstance(member, bool) and bool(instance == member)


def _properties(instance: dict[str, Any], schema: dict[str, Any], value: dict[str, Any]) -> bool:
    return all(conforms(instance[key], sub) for key, sub in value.items() if key in instance)


def _additional(instance: dict[str, Any], schema: dict[str, Any], value: Any) -> bool:
    if "patternProperties" in schema or not isinstance(value, dict):
        raise Unsupported("additionalProperties with patternProperties or a boolean")
    named = schema.get("properties", {})
    return all(conforms(item, value) for key, item in instance.items() if key not in named)


def _required(instance: dict[str, Any], schema: dict[str, Any], value: list[str]) -> bool:
    return all(key in instance for key in value)


def _property_names(instance: dict[str, Any], schema: dict[str, Any], value: dict[str, Any]) -> bool:
    return all(conforms(key, value) for key in instance)


_OBJECT_KEYWORDS = {
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "propertyNames": _property_names,
}
_BOUNDS = {
    "minimum": lambda number, bound: number >= bound,
    "maximum": lambda number, bound: number <= bound,
    "exclusiveMinimum": lambda number, bound: number > bound,
    "exclusiveMaximum": lambda number, bound: number < bound,
}
