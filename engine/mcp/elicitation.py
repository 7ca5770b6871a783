"""An elicitation's requested schema as template form fields, and the filled form back as typed content.

The spec restricts the schema to a flat object of primitives — strings (with `format` email / uri / date /
date-time and length limits), numbers and integers (with limits), booleans, single-choice enums (`enum`, or
`oneOf` of `{const, title}`) and multi-choice arrays of enums — so each property maps onto one field of the
template form, and its checks are the template form's checks plus the few the schema adds.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..sanitize import clean_line
from ..templates.fields import FieldType, TemplateField, checkbox_value

_FORMATS: dict[str, FieldType] = {"email": "email", "uri": "url", "date": "date", "date-time": "datetime-local"}


def _choices(prop: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The option values and, for `oneOf`, their titles (shown in the description)."""
    if isinstance(prop.get("enum"), list):
        return [str(v) for v in prop["enum"]], {}
    options: list[str] = []
    titles: dict[str, str] = {}
    for item in prop.get("oneOf") or prop.get("anyOf") or []:
        if isinstance(item, dict) and "const" in item:
            value = str(item["const"])
            options.append(value)
            if item.get("title"):
                titles[value] = str(item["title"])
    return options, titles


def schema_fields(schema: dict[str, Any]) -> list[TemplateField]:
    """One `TemplateField` per property, in the schema's order."""
    required = set(schema.get("required") or [])
    fields: list[TemplateField] = []
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        kind = prop.get("type")
        label = str(prop.get("title") or name)
        description = str(prop.get("description") or "")
        default = prop.get("default")
        base = TemplateField(name, label=label, description=description, required=name in required)
        options, titles = _choices(prop)
        if kind == "array":
            items = prop.get("items") if isinstance(prop.get("items"), dict) else {}
            options, titles = _choices(items or {})
            hint = "comma-separated" + (f": {', '.join(options)}" if options else "")
            initial = ", ".join(str(v) for v in default) if isinstance(default, list) else None
            fields.append(replace(base, type="text", placeholder=hint, default=initial))
        elif options:
            if titles:
                names = "; ".join(f"{value} = {title}" for value, title in titles.items())
                base = replace(base, description=f"{description} ({names})".strip())
            fields.append(replace(base, type="select", options=tuple(options),
                                  default=str(default) if default is not None else None))
        elif kind == "boolean":
            fields.append(replace(base, type="checkbox", required=False, default=checkbox_value(bool(default))))
        elif kind in ("number", "integer"):
            fields.append(
                replace(
                    base,
                    type="number",
                    min=_number(prop.get("minimum")),
                    max=_number(prop.get("maximum")),
                    step=1.0 if kind == "integer" else None,
                    default=str(default) if default is not None else None,
                )
            )
        else:
            fields.append(
                replace(base, type=_FORMATS.get(str(prop.get("format") or ""), "text"),
                        default=str(default) if default is not None else None)
            )
    return fields


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def check_value(schema: dict[str, Any], name: str, text: str) -> str | None:
    """What the schema adds to the field's own check: string lengths, the choices of a multi-select and how
    many may be chosen (the engine checks the whole answer again before it is sent: `answer_check`)."""
    prop = (schema.get("properties") or {}).get(name) or {}
    label = str(prop.get("title") or name)
    if prop.get("type") == "string" and text:
        if isinstance(prop.get("minLength"), int) and len(text) < prop["minLength"]:
            return f"{label}: at least {prop['minLength']} characters."
        if isinstance(prop.get("maxLength"), int) and len(text) > prop["maxLength"]:
            return f"{label}: at most {prop['maxLength']} characters."
    if prop.get("type") == "array" and text.strip():
        options, _titles = _choices(prop.get("items") or {})
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        wrong = [value for value in chosen if options and value not in options]
        if wrong:
            return f"{label}: {', '.join(wrong)} is not one of {', '.join(options)}."
        if isinstance(prop.get("maxItems"), int) and len(chosen) > prop["maxItems"]:
            return f"{label}: choose at most {prop['maxItems']}."
        if isinstance(prop.get("minItems"), int) and len(chosen) < prop["minItems"]:
            return f"{label}: choose at least {prop['minItems']}."
    return None


def form_content(schema: dict[str, Any], values: dict[str, str]) -> dict[str, Any]:
    """The form's text values as the typed content the server asked for; empty optional fields are left out."""
    content: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict) or name not in values:
            continue
        text = values[name].strip()
        kind = prop.get("type")
        if kind == "boolean":
            content[name] = checkbox_value(text) == "true"
        elif not text:
            continue
        elif kind == "integer":
            content[name] = int(float(text))
        elif kind == "number":
            number = float(text)
            content[name] = int(number) if number.is_integer() else number
        elif kind == "array":
            content[name] = [part.strip() for part in text.split(",") if part.strip()]
        else:
            content[name] = text
    return content


def form_texts(schema: dict[str, Any], content: dict[str, Any]) -> dict[str, str]:
    """An answer the server's schema refused, as the texts its form fields show (`form_content` the other way),
    so the form reopens filled and the user corrects one value instead of typing them all again.

    The values came from this host's own form, but a field the schema does not name is left out, and every text
    is cleaned: it goes back on the screen."""
    texts: dict[str, str] = {}
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict) or name not in content:
            continue
        value = content[name]
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, list):
            text = ", ".join(str(item) for item in value)
        elif value is None:
            continue
        else:
            text = str(value)
        texts[name] = clean_line(text, 2000)
    return texts
