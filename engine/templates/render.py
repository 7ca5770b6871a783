"""Filling placeholders: which text each placeholder gets, and the result as segments for a preview.

`Prompt.render` joins the segments; the form's preview shows them with the unfilled placeholders marked, so
both always agree on what the message will say.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import TemplateField, checkbox_value
from .syntax import scan
from .system import CLOCK_VARIABLES, Clock, UserContext, is_system_variable, local_now, system_values, user_values


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of the rendered text; `placeholder` is the variable name when this run was left as written."""

    text: str
    placeholder: str = ""


def resolve_values(
    content: str,
    fields: list[TemplateField],
    given: Mapping[str, object],
    clock: Clock | None,
    user: UserContext | None = None,
) -> dict[str, str]:
    """The text for every placeholder name that gets filled; names missing here stay as written.

    Order of precedence: the caller's value, then (system variables) the clock or the user's facts (from the
    environment when `user` is None), then the field's default.
    """
    values: dict[str, str] = {}
    for spec in fields:
        if spec.name in given:
            raw = given[spec.name]
            values[spec.name] = checkbox_value(raw) if spec.type == "checkbox" else as_text(raw)
        elif spec.default is not None:
            values[spec.name] = spec.default
    names = {p.name for p in scan(content).placeholders if is_system_variable(p.name)}
    if names:
        system: dict[str, str] = {}
        if names & set(CLOCK_VARIABLES):
            system.update(system_values((clock or local_now)()))
        if names - set(CLOCK_VARIABLES):
            system.update(user_values(user if user is not None else UserContext.from_environment()))
        for name in names:
            values[name] = as_text(given[name]) if name in given else system[name]
    return values


def segments(content: str, values: Mapping[str, str]) -> list[Segment]:
    """`content` cut into literal text, filled values, and placeholders left as written."""
    parts: list[Segment] = []
    position = 0
    for placeholder in scan(content).placeholders:
        filled = placeholder.name in values
        parts.append(Segment(content[position : placeholder.start]))
        if filled:
            parts.append(Segment(values[placeholder.name]))
        else:
            parts.append(Segment(content[placeholder.start : placeholder.end], placeholder.name))
        position = placeholder.end
    parts.append(Segment(content[position:]))
    return [part for part in parts if part.text]


def as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)
