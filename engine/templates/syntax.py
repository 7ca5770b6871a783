"""Finding placeholders in template text: plain `{{name}}` and typed `{{name | type:prop=value:flag}}`.

The typed form is the one Open WebUI users know, including its prefix form `{{name | type=select:…}}`. Values
may be quoted ("…" or '…', so they may hold `:` and `}}`), JSON-like lists (`options=["a","b"]`) or bare words
(`min=1`). Anything that starts like a typed placeholder but does not parse is *malformed*: it is not a
placeholder, it stays in the text exactly as written, and `scan()` reports why so the editor can tell the
user. The scanner never raises and never looks further than `MAX_SPEC_LENGTH` characters for the end of a
placeholder, so any text scans in linear time.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from .fields import TemplateField, checkbox_value, normalise_type

#: A variable name: word characters of any script, dots and dashes, not starting with a digit (the spec's).
NAME = re.compile(r"[^\W\d][\w.-]*")
#: Where a placeholder may start: `{{`, a name, then `}}` (plain), `|` (typed) or anything else (not one).
_START = re.compile(r"\{\{\s*([^\W\d][\w.-]*)\s*(\}\}|\|)?")
_QUOTED = {
    '"': re.compile(r'"((?:[^"\\]++|\\.)*+)"', re.DOTALL),
    "'": re.compile(r"'((?:[^'\\]++|\\.)*+)'", re.DOTALL),
}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_WS = re.compile(r"\s*")
_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_BARE_STOP = frozenset(":}],")
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}

#: How far past the `|` the scanner looks for the closing `}}` before calling the placeholder malformed.
MAX_SPEC_LENGTH = 4000
_NO_CLOSE = f"no closing '}}}}' within {MAX_SPEC_LENGTH} characters"
_TEXT_PROPS = ("label", "description", "placeholder", "default")
_NUMBER_PROPS = ("min", "max", "step")


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One placeholder occurrence: `content[start:end]` is its text; `field` is None for a plain one."""

    start: int
    end: int
    name: str
    field: TemplateField | None


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """A typed placeholder that does not parse, with the reason in words a template author can act on."""

    start: int
    line: int
    excerpt: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.excerpt} — {self.message}"


@dataclass(frozen=True, slots=True)
class Scan:
    placeholders: tuple[Placeholder, ...]
    problems: tuple[SyntaxProblem, ...]


class _Malformed(Exception):
    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


@lru_cache(maxsize=512)
def scan(content: str) -> Scan:
    """Every placeholder of `content`, left to right, and every malformed typed placeholder.

    Cached: the form re-renders its preview on every key press and a template's text rarely changes.
    """
    placeholders: list[Placeholder] = []
    problems: list[SyntaxProblem] = []
    position = 0
    line, counted_to = 1, 0  # line numbers are counted incrementally: counting from 0 each time is quadratic
    while True:
        match = _START.search(content, position)
        if match is None:
            break
        start, name, after = match.start(), match.group(1), match.group(2)
        if after == "}}":
            placeholders.append(Placeholder(start, match.end(), name, None))
            position = match.end()
        elif after == "|":
            try:
                spec, end = _parse_spec(content, match.end(), name)
            except _Malformed as problem:
                line += content.count("\n", counted_to, start)
                counted_to = start
                problems.append(_problem(content, start, line, problem))
                position = start + 1
                continue
            placeholders.append(Placeholder(start, end, name, spec))
            position = end
        else:
            position = start + 1
    return Scan(tuple(placeholders), tuple(problems))


def _skip(content: str, position: int) -> int:
    match = _WS.match(content, position)
    return match.end() if match else position


def _problem(content: str, start: int, line: int, problem: _Malformed) -> SyntaxProblem:
    stop = max(problem.position + 1, start + 2)
    excerpt = content[start : min(stop, start + 60)].replace("\n", "⏎")
    if stop > start + 60:
        excerpt += "…"
    return SyntaxProblem(start, line, excerpt, problem.message)


def _parse_spec(content: str, position: int, name: str) -> tuple[TemplateField, int]:
    """Parse `type(:key[=value])*}}` from just after the `|`; returns the field and the end offset."""
    limit = min(len(content), position + MAX_SPEC_LENGTH)
    position = _skip(content, position)
    type_match = _TYPE.match(content, position)
    if type_match is None or type_match.end() > limit:
        raise _Malformed("a type (text, textarea, select, number, checkbox, date, …) must follow '|'", position)
    type_word = type_match.group(0)
    position = type_match.end()
    after = _skip(content, position)
    if type_word.lower() == "type" and content.startswith("=", after):
        # Open WebUI's prefix form, `{{level | type=select:options=[...]}}`, names the type as a property.
        value, position = _parse_value(content, _skip(content, after + 1), limit)
        if not isinstance(value, str) or not _TYPE.fullmatch(value):
            raise _Malformed("'type=' must name a type (text, textarea, select, number, …)", after)
        type_word = value
    props: dict[str, str | list[str] | bool] = {}
    while True:
        position = _skip(content, position)
        if position >= limit:
            raise _Malformed(_NO_CLOSE, limit)
        if content.startswith("}}", position):
            return _build_field(name, type_word, props, position + 1), position + 2
        if content[position] != ":":
            raise _Malformed(f"unexpected {content[position]!r}; properties are written ':key=value'", position)
        position = _skip(content, position + 1)
        key_match = _KEY.match(content, position)
        if key_match is None:
            raise _Malformed("a property name must follow ':'", position)
        key = key_match.group(0).lower()
        position = _skip(content, key_match.end())
        if content.startswith("=", position):
            value, position = _parse_value(content, _skip(content, position + 1), limit)
            props[key] = value
        else:
            props[key] = True


def _parse_value(content: str, position: int, limit: int) -> tuple[str | list[str], int]:
    if position >= limit:
        raise _Malformed(_NO_CLOSE, limit)
    char = content[position]
    if char in "\"'":
        return _parse_quoted(content, position, limit)
    if char == "[":
        return _parse_list(content, position, limit)
    end = position
    while end < limit and content[end] not in _BARE_STOP and not content[end].isspace():
        end += 1
    if end == position:
        raise _Malformed("a value must follow '='", position)
    return content[position:end], end


def _parse_quoted(content: str, position: int, limit: int) -> tuple[str, int]:
    """A quoted value; `\\n`, `\\t`, `\\"`, `\\'`, `\\\\` and `\\uXXXX` are escapes, any other backslash is kept."""
    quote = content[position]
    match = _QUOTED[quote].match(content, position, limit)
    if match is None:
        raise _Malformed(f"a value opened with {quote} is never closed", position)
    return _ESCAPE.sub(_unescape, match.group(1)), match.end()


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code in _ESCAPES:
        return _ESCAPES[code]
    if len(code) == 5:
        return chr(int(code[1:], 16))
    return match.group(0)


def _parse_list(content: str, position: int, limit: int) -> tuple[list[str], int]:
    """`["a", 'b', c]`: quoted or bare items separated by commas; a trailing comma is allowed."""
    items: list[str] = []
    index = position + 1
    while True:
        index = _skip(content, index)
        if index >= limit:
            raise _Malformed("a list opened with '[' is never closed", position)
        if content[index] == "]":
            return items, index + 1
        if content[index] in "\"'":
            item, index = _parse_quoted(content, index, limit)
        elif content[index] in "[{":
            raise _Malformed("list items must be plain values, not nested lists", index)
        else:
            end = index
            while end < limit and content[end] not in ",]" and not content.startswith("}}", end):
                end += 1
            item = content[index:end].strip()
            if not item:
                raise _Malformed("empty item in a list", index)
            index = end
        items.append(item)
        index = _skip(content, index)
        if index < limit and content[index] == ",":
            index += 1
        elif index >= limit or content.startswith("}}", index):
            raise _Malformed("a list opened with '[' is never closed", position)
        elif content[index] != "]":
            raise _Malformed("list items must be separated by ','", index)


def _build_field(name: str, type_word: str, props: dict[str, str | list[str] | bool], at: int) -> TemplateField:
    field_type = normalise_type(type_word)
    texts: dict[str, str | None] = {}
    for key in _TEXT_PROPS:
        value = props.get(key)
        if isinstance(value, bool):
            if key == "default" and field_type == "checkbox":
                value = "true"
            else:
                raise _Malformed(f"'{key}' needs a value, as in {key}=\"…\"", at)
        if isinstance(value, list):
            raise _Malformed(f"'{key}' must be text, not a list", at)
        texts[key] = value
    numbers: dict[str, float | None] = {}
    for key in _NUMBER_PROPS:
        raw = props.get(key)
        number = _finite_number(raw)
        if raw is not None and number is None:
            shown = raw if isinstance(raw, str) else "nothing" if isinstance(raw, bool) else "a list"
            raise _Malformed(f"'{key}' must be a number, not {shown!r}", at)
        numbers[key] = number
    if numbers["step"] is not None and numbers["step"] <= 0:
        raise _Malformed("'step' must be greater than 0", at)
    minimum, maximum = numbers["min"], numbers["max"]
    if minimum is not None and maximum is not None and minimum > maximum:
        raise _Malformed("'min' is greater than 'max'", at)
    options_raw = props.get("options")
    if options_raw is not None and not isinstance(options_raw, list):
        raise _Malformed('\'options\' must be a list, as in options=["a","b"]', at)
    options = tuple(options_raw or ())
    if field_type == "select" and not options:
        raise _Malformed('a select needs options, as in select:options=["a","b"]', at)
    required_raw = props.get("required", False)
    required = required_raw if isinstance(required_raw, bool) else checkbox_value(required_raw) == "true"
    default = texts["default"]
    if field_type == "checkbox" and default is not None:
        default = checkbox_value(default)
    if field_type == "select" and default is not None and default not in options:
        # The form could not show it (a drop-down holds only its options), so form and script would disagree.
        raise _Malformed(f"the default {default!r} is not one of the options", at)
    known = {*_TEXT_PROPS, *_NUMBER_PROPS, "options", "required"}
    extra = tuple(
        (key, value if isinstance(value, str) else json.dumps(value))
        for key, value in props.items()
        if key not in known
    )
    return TemplateField(
        name=name,
        type=field_type,
        label=texts["label"] or "",
        description=texts["description"] or "",
        placeholder=texts["placeholder"] or "",
        default=default,
        required=required,
        options=options,
        min=minimum,
        max=maximum,
        step=numbers["step"],
        extra=extra,
    )


def _finite_number(raw: str | list[str] | bool | None) -> float | None:
    if not isinstance(raw, str):
        return None
    try:
        number = float(raw)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
