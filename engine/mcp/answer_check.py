"""An elicitation's answer checked against the schema the server sent, before anything is sent back.

The app's form checks fields as they are typed, but a host is any code that implements `MCPHost` — a script,
another front end — and a form can miss a rule (a list's `maxItems`). So the engine checks every accepted
answer with jsonschema (Draft 2020-12, with its format checks) against the server's own `requestedSchema`:
an answer that does not conform is never sent; the host is asked again with what is wrong, in words that
name the field by its title. Messages describe what is expected, never repeat the value.

jsonschema is imported here only, when a server asks for input (its import costs start-up time).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..sanitize import clean_line

if TYPE_CHECKING:
    import jsonschema

_TYPE_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "yes or no (true/false)",
    "array": "a list of choices",
    "object": "an object",
    "null": "nothing",
}


_BOUNDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "more than",
    "exclusiveMaximum": "less than",
}


def schema_error(schema: dict[str, Any]) -> str:
    """Why `schema` is not a JSON Schema jsonschema can check answers against; "" when it is."""
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the schema"
        return f"it is not a valid JSON Schema ({clean_line(where, 60)}: {clean_line(error.message, 120)})"
    return ""


def answer_problems(schema: dict[str, Any], content: object) -> list[str]:
    """What is wrong with an accepted answer, one line per problem in field order; [] when it conforms."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    order = list((schema.get("properties") or {}).keys())
    found: list[tuple[int, str]] = []
    for error in validator.iter_errors(content):
        path = list(error.absolute_path)
        if not path and error.validator == "required":  # one line per missing field, in its place
            missing = [str(name) for name in error.validator_value if not _has(error.instance, name)]
            found += [(_place(order, name), f"{_label(schema, name)}: an answer is required") for name in missing]
        else:
            found.append((_place(order, str(path[0]) if path else ""), _describe(schema, error)))
    problems: list[str] = []
    for _place_in_form, problem in sorted(found, key=lambda item: item[0]):
        if problem not in problems:
            problems.append(problem)
    return problems


def _place(order: list[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


def _label(schema: dict[str, Any], name: str) -> str:
    prop = (schema.get("properties") or {}).get(name)
    title = prop.get("title") if isinstance(prop, dict) else None
    return clean_line(str(title or name), 60)


def _choices(values: object) -> str:
    shown = [clean_line(str(value), 40) for value in values] if isinstance(values, list) else []
    return ", ".join(shown[:12]) + (", …" if len(shown) > 12 else "")


def _describe(schema: dict[str, Any], error: jsonschema.ValidationError) -> str:
    """One line for one violation: the field's title, then what it needs."""
    path = list(error.absolute_path)
    expected: Any = error.validator_value
    if not path:
        if error.validator == "type":
            return "the answer must be an object of fields"
        if error.validator == "additionalProperties":
            return f"the answer has fields the server did not ask for ({clean_line(error.message, 120)})"
        return f"the answer is not valid: {clean_line(error.message, 160)}"
    label = _label(schema, str(path[0]))
    if len(path) > 1:
        label = f"{label}, choice {int(path[1]) + 1}" if isinstance(path[1], int) else label
    validator = error.validator
    if validator == "type":
        names = expected if isinstance(expected, list) else [expected]
        return f"{label}: expected {' or '.join(_TYPE_WORDS.get(str(n), str(n)) for n in names)}"
    if validator == "enum":
        return f"{label}: must be one of {_choices(expected)}"
    if validator in ("oneOf", "anyOf") and isinstance(expected, list):
        consts = [item["const"] for item in expected if isinstance(item, dict) and "const" in item]
        if consts:
            return f"{label}: must be one of {_choices(consts)}"
    if validator == "const":
        return f"{label}: must be {clean_line(str(expected), 40)}"
    if validator in ("minLength", "maxLength"):
        return f"{label}: at {'least' if validator == 'minLength' else 'most'} {expected} characters"
    if validator in ("minItems", "maxItems"):
        return f"{label}: choose at {'least' if validator == 'minItems' else 'most'} {expected}"
    if validator == "uniqueItems":
        return f"{label}: each choice only once"
    if validator in _BOUNDS:
        return f"{label}: must be {_BOUNDS[str(validator)]} {expected}"
    if validator == "multipleOf":
        return f"{label}: must be a multiple of {expected}"
    if validator == "format":
        return f"{label}: not a valid {clean_line(str(expected), 30)}"
    if validator == "pattern":
        return f"{label}: not in the expected form"
    return f"{label}: is not valid ({clean_line(str(validator), 30)})"


def _has(instance: object, name: object) -> bool:
    return isinstance(instance, dict) and name in instance
