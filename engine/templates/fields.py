"""What one form field of a template asks for, and whether a value answers it.

Local templates (typed placeholders) and MCP prompts (string arguments with a required flag) are both
described as `TemplateField`s, so one form serves both and one function checks every value. The checks live
here rather than in the UI so that a script filling a template gets the same answers as the form.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, get_args

FieldType = Literal[
    "text",
    "textarea",
    "select",
    "number",
    "checkbox",
    "date",
    "time",
    "datetime-local",
    "month",
    "email",
    "url",
    "tel",
    "color",
]

#: Every type a placeholder may name; other names read as "textarea", as in Open WebUI (whose form falls back
#: to a multi-line text area for a type it does not know).
FIELD_TYPES: tuple[FieldType, ...] = get_args(FieldType)

#: Open WebUI's `range` is a number with a slider; a terminal has no slider, so it is a number here.
TYPE_ALIASES: dict[str, FieldType] = {"range": "number", "datetime": "datetime-local", "string": "text"}

#: What a user types for the text-like types, shown as the input's placeholder when the template gives none.
FORMAT_HINTS: dict[str, str] = {
    "date": "YYYY-MM-DD",
    "time": "HH:MM",
    "datetime-local": "YYYY-MM-DD HH:MM",
    "month": "YYYY-MM",
    "email": "name@example.com",
    "url": "https://…",
    "tel": "+1 555 0100",
    "color": "#rrggbb",
}

TRUE_WORDS = frozenset({"true", "yes", "on", "1", "checked"})
FALSE_WORDS = frozenset({"false", "no", "off", "0", "unchecked", ""})

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+\S*$")
_TEL = re.compile(r"^\+?[0-9 ()./-]{3,}$")
_COLOR = re.compile(r"^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}(?::\d{2})?$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?$")
_MONTH = re.compile(r"^\d{4}-\d{2}$")


def normalise_type(name: str) -> FieldType:
    """The field type a placeholder's type word stands for; unknown words mean "textarea" (Open WebUI's)."""
    word = name.strip().lower()
    if word in TYPE_ALIASES:
        return TYPE_ALIASES[word]
    for known in FIELD_TYPES:
        if known == word:
            return known
    return "textarea"


def checkbox_value(value: object) -> str:
    """A checkbox's value as the text that goes into the message: "true" or "false"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "true" if str(value).strip().lower() in TRUE_WORDS else "false"


def format_number(value: float) -> str:
    """`3.0` reads as `3` in a prompt; other values keep Python's shortest repr."""
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


@dataclass(frozen=True, slots=True)
class TemplateField:
    """One value a template needs, in the shape the form and the checks use.

    `default` is text: the value the field starts with and the value `render()` uses when the caller gives
    none. For a checkbox it is "true" or "false". `min`/`max`/`step` only mean something for numbers,
    `options` only for a select.
    """

    name: str
    type: FieldType = "text"
    label: str = ""
    description: str = ""
    placeholder: str = ""
    default: str | None = None
    required: bool = False
    options: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    step: float | None = None
    #: Properties the placeholder gave that no type uses; kept so that writing the field back loses nothing.
    extra: tuple[tuple[str, str], ...] = field(default=())

    @property
    def title(self) -> str:
        """What the form shows above the widget: the label if the template gave one, else the name."""
        return self.label or self.name

    @property
    def hint(self) -> str:
        """The placeholder text for an empty input: the template's, else the expected format."""
        return self.placeholder or FORMAT_HINTS.get(self.type, "")

    def initial_value(self, remembered: Mapping[str, str] | None = None) -> str:
        """The value a fresh form shows: last time's, else the default, else nothing."""
        if remembered is not None and self.name in remembered:
            return str(remembered[self.name])
        if self.default is not None:
            return self.default
        if self.type == "checkbox":
            return "false"
        return ""

    def check(self, value: str) -> str | None:
        """Why `value` does not answer this field, as a sentence for the user; None when it does.

        An empty optional field is fine: its placeholder stays in the message as written (the spec's rule).
        """
        if self.type == "checkbox":
            return None
        text = value.strip() if self.type != "textarea" else value
        if not text.strip():
            return f"{self.title} is required." if self.required else None
        return _check_format(self, value.strip())

    def to_placeholder(self) -> str:
        """The placeholder text that parses back into this field (used by the editor and the tests)."""
        parts: list[str] = [self.type]
        if self.label:
            parts.append(f"label={_quote(self.label)}")
        if self.description:
            parts.append(f"description={_quote(self.description)}")
        if self.placeholder:
            parts.append(f"placeholder={_quote(self.placeholder)}")
        if self.options:
            parts.append("options=[" + ",".join(_quote(option) for option in self.options) + "]")
        for key, number in (("min", self.min), ("max", self.max), ("step", self.step)):
            if number is not None:
                parts.append(f"{key}={format_number(number)}")
        if self.default is not None:
            parts.append(f"default={_quote(self.default)}")
        for key, raw in self.extra:
            parts.append(f"{key}={_quote(raw)}")
        if self.required:
            parts.append("required")
        return "{{" + self.name + " | " + ":".join(parts) + "}}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type, "required": self.required}
        for key in ("label", "description", "placeholder"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.default is not None:
            data["default"] = self.default
        if self.options:
            data["options"] = list(self.options)
        for key in ("min", "max", "step"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


def _quote(text: str) -> str:
    """A double-quoted value with the escapes the parser reads back."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def _check_format(spec: TemplateField, text: str) -> str | None:
    title = spec.title
    kind = spec.type
    if kind == "number":
        return _check_number(spec, text)
    if kind == "select":
        if text in spec.options:
            return None
        return f"{title}: choose one of " + ", ".join(spec.options) + "."
    if kind == "date":
        if _DATE.match(text) and _parses(date.fromisoformat, text):
            return None
        return f"{title}: enter a date as YYYY-MM-DD, for example 2026-03-14."
    if kind == "time":
        if _TIME.match(text) and _valid_time(text):
            return None
        return f"{title}: enter a time as HH:MM, for example 09:30."
    if kind == "datetime-local":
        if _DATETIME.match(text) and _parses(datetime.fromisoformat, text):
            return None
        return f"{title}: enter a date and time as YYYY-MM-DD HH:MM."
    if kind == "month":
        if _MONTH.match(text) and 1 <= int(text[5:7]) <= 12:
            return None
        return f"{title}: enter a month as YYYY-MM."
    checks = {
        "email": (_EMAIL, "an e-mail address such as name@example.com"),
        "url": (_URL, "a URL such as https://example.com"),
        "tel": (_TEL, "a phone number (digits, spaces, + - ( ) .)"),
        "color": (_COLOR, "a colour as #rgb or #rrggbb"),
    }
    if kind in checks:
        pattern, what = checks[kind]
        return None if pattern.match(text) else f"{title}: enter {what}."
    return None


def _check_number(spec: TemplateField, text: str) -> str | None:
    try:
        number = float(text)
    except ValueError:
        return f"{spec.title}: enter a number."
    if not math.isfinite(number):
        return f"{spec.title}: enter a finite number."
    if spec.min is not None and number < spec.min:
        return f"{spec.title}: must be at least {format_number(spec.min)}."
    if spec.max is not None and number > spec.max:
        return f"{spec.title}: must be at most {format_number(spec.max)}."
    if spec.step is not None and spec.step > 0:
        base = spec.min if spec.min is not None else 0.0
        steps = (number - base) / spec.step
        if abs(steps - round(steps)) > 1e-9 * max(1.0, abs(steps)):
            return f"{spec.title}: must be a multiple of {format_number(spec.step)}" + (
                f" from {format_number(base)}." if base else "."
            )
    return None


def _parses(parse: Any, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _valid_time(text: str) -> bool:
    parts = [int(p) for p in text.split(":")]
    return parts[0] < 24 and parts[1] < 60 and (len(parts) < 3 or parts[2] < 60)
