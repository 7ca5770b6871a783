"""Running a tool call the model asked for, so that nothing it sends can end the dialog.

Arguments are parsed and validated against the function's schema before `invoke`; a parse error, a schema
violation, an unknown tool or an exception inside the tool all become a result text the model reads and can
react to (the spec: a dialog interrupted by an exception can only start over).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from .function import Function

# jsonschema (with referencing, attrs and its format checkers) is imported by the first validation: a run that
# calls no tool never needs it, and `visindigo ask` would wait for it before sending its question. The app
# loads it in its start-up warm-up, so its first tool call does not wait either.


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What goes back to the model as the tool result, and how it went."""

    text: str
    is_error: bool
    duration: float
    arguments: dict[str, Any]


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """The model's argument text as an object; "" means no arguments. Raises ValueError otherwise."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"the arguments are not valid JSON ({error.msg} at position {error.pos})") from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"the arguments must be a JSON object, not {type(value).__name__}")
    return value


def validation_error(schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """A readable description of why `arguments` break `schema`, or None when they fit."""
    if not schema:
        return None
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(schema)
        validator = validator_class(schema)
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    except jsonschema.SchemaError as schema_error:
        return f"the tool's own parameter schema is invalid: {schema_error.message}"
    if not errors:
        return None
    parts = []
    for error in errors[:5]:
        where = "/".join(str(p) for p in error.absolute_path)
        parts.append(f"{where}: {error.message}" if where else error.message)
    return "; ".join(parts)


def result_text(result: object) -> str:
    """Compact JSON of a tool's result, as the spec asks; plain strings pass through unchanged."""
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(result)


def error_result(message: str) -> str:
    return result_text({"error": message})


async def run_function(function: Function | None, name: str, raw_arguments: str | dict[str, Any] | None) -> ToolOutcome:
    """Validate and run one call; never raises (except cancellation)."""
    started = time.perf_counter()

    def done(text: str, is_error: bool, arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome(text, is_error, time.perf_counter() - started, arguments)

    if function is None:
        return done(error_result(f"unknown tool {name!r}: no function with this name is available"), True, {})
    try:
        arguments = parse_arguments(raw_arguments)
    except ValueError as error:
        return done(error_result(f"invalid arguments for {name}: {error}"), True, {})
    problem = validation_error(function.parameter_schema, arguments)
    if problem:
        return done(error_result(f"invalid arguments for {name}: {problem}"), True, arguments)
    try:
        result = await function.invoke_async(arguments)
    except Exception as error:  # a tool's failure is information for the model, not the end of the dialog
        return done(error_result(f"{name} failed: {type(error).__name__}: {error}"), True, arguments)
    is_error = isinstance(result, dict) and bool(result.get("isError") or result.get("is_error"))
    return done(result_text(result), is_error, arguments)
