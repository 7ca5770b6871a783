"""User themes: one TOML file per theme in `<config dir>/themes/`.

A broken file must never stop the application from starting, so loading collects problems as
"<file>: <what is wrong>" strings instead of raising, and skips only the file (or the single variable) at fault.
Every colour and variable is checked with Textual's own colour and CSS parsers before the theme is accepted: a
theme that passed here cannot break the stylesheet when the user switches to it.

File format (all keys optional except `primary`, unless `extends` names a theme to start from)::

    name = "midnight"            # defaults to the file name without ".toml"
    extends = "visindigo-dark"   # start from this theme: ours, Textual's, or an earlier user theme
    dark = true
    primary = "#7AA2F7"
    secondary = "#BB9AF7"
    accent = "#FF9E64"
    warning = "#E0AF68"
    error = "#F7768E"
    success = "#9ECE6A"
    foreground = "#C0CAF5"
    background = "#1A1B26"
    surface = "#24283B"
    panel = "#414868"
    boost = "#2F3549"
    luminosity_spread = 0.15
    text_alpha = 0.95
    ansi = false

    [variables]                  # any Textual theme variable, e.g.
    border = "#7AA2F7"
    footer-key-foreground = "#FF9E64"
    block-cursor-text-style = "bold"
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.css.stylesheet import Stylesheet
from textual.theme import Theme

COLOR_KEYS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
              "surface", "panel", "boost")
NUMBER_KEYS = ("luminosity_spread", "text_alpha")
BOOL_KEYS = ("dark", "ansi")
OTHER_KEYS = ("name", "extends", "variables")
KNOWN_KEYS = frozenset(COLOR_KEYS + NUMBER_KEYS + BOOL_KEYS + OTHER_KEYS)

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_VARIABLE_NAME_PATTERN = re.compile(r"^[a-z][a-z0-9-]*$")


class ThemeFileError(ValueError):
    """What is wrong with one theme file; the message is shown to the user as it is."""


def known_variable_names() -> frozenset[str]:
    """Every variable Textual derives from a theme; a `[variables]` key outside this set is probably a typo."""
    return frozenset(Theme(name="probe", primary="#000000").to_color_system().generate())


def _variable_property(name: str) -> str:
    """The CSS property a variable is used with, so its value is checked by the parser that will read it."""
    if name.endswith("text-style") or name.startswith("link-style"):
        return "text-style"
    return "background"


def check_variable(name: str, value: str) -> str | None:
    """None when `value` parses as Textual CSS for this variable, else a short reason."""
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    if any(ch in value for ch in ";{}$\n\r"):
        return "must be a single CSS value (no ';', '{', '}', '$' or line breaks)"
    prop = _variable_property(name)
    stylesheet = Stylesheet(variables={"v": value})
    stylesheet.add_source(f"Widget {{ {prop}: $v; }}", read_from=("theme", name))
    try:
        stylesheet.parse()
    except Exception:
        kind = "a text style such as 'bold' or 'none'" if prop == "text-style" else "a colour such as '#1A1B26'"
        return f"{value!r} is not {kind}"
    return None


def theme_from_mapping(data: Mapping[str, Any], *, default_name: str,
                       known: Mapping[str, Theme]) -> tuple[Theme, list[str]]:
    """Build a theme from a parsed TOML document.

    Returns the theme and a list of warnings (ignored keys and variables). Raises ThemeFileError when the theme
    cannot be used at all.
    """
    warnings: list[str] = []
    name = data.get("name", default_name)
    if not isinstance(name, str) or not _NAME_PATTERN.match(name):
        raise ThemeFileError(
            f"'name' must be letters, digits, '-', '_' or '.', at most 64 characters (got {name!r})"
        )
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        warnings.append(f"unknown key(s) ignored: {', '.join(unknown)}")

    fields: dict[str, Any] = {}
    variables: dict[str, str] = {}
    extends = data.get("extends")
    if extends is not None:
        if not isinstance(extends, str) or extends not in known:
            raise ThemeFileError(f"'extends' names no known theme: {extends!r}")
        base = known[extends]
        inherited = (f.name for f in dataclasses.fields(Theme) if f.name not in ("name", "variables"))
        fields = {name: getattr(base, name) for name in inherited}
        variables = dict(base.variables)

    for key in COLOR_KEYS:
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, str):
            raise ThemeFileError(f"{key!r} must be a colour string such as \"#1A1B26\" (got {value!r})")
        try:
            Color.parse(value)
        except ColorParseError:
            raise ThemeFileError(f"{key!r}: {value!r} is not a colour (use \"#RRGGBB\", \"rgb(r,g,b)\" "
                                 "or a colour name)") from None
        fields[key] = value
    for key in NUMBER_KEYS:
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ThemeFileError(f"{key!r} must be a number from 0 to 1 (got {value!r})")
            fields[key] = float(value)
    for key in BOOL_KEYS:
        if key in data:
            if not isinstance(data[key], bool):
                raise ThemeFileError(f"{key!r} must be true or false (got {data[key]!r})")
            fields[key] = data[key]
    if "primary" not in fields:
        raise ThemeFileError("'primary' is required (or 'extends' to start from another theme)")

    raw_variables = data.get("variables", {})
    if not isinstance(raw_variables, Mapping):
        raise ThemeFileError("[variables] must be a table of name = \"value\"")
    names = known_variable_names()
    for var_name, value in raw_variables.items():
        if not _VARIABLE_NAME_PATTERN.match(var_name):
            warnings.append(f"variable {var_name!r} ignored: names are lower-case words joined by '-'")
            continue
        if var_name not in names:
            warnings.append(f"variable {var_name!r} ignored: Textual has no variable of that name")
            continue
        problem = check_variable(var_name, value)
        if problem:
            warnings.append(f"variable {var_name!r} ignored: {problem}")
            continue
        variables[var_name] = value

    theme = Theme(name=name, **fields, variables=variables)
    try:
        theme.to_color_system().generate()
    except Exception as error:  # a combination Textual cannot derive colours from
        raise ThemeFileError(f"Textual cannot build colours from this theme: {error}") from None
    return theme, warnings


def load_theme_file(path: Path, known: Mapping[str, Theme]) -> tuple[Theme, list[str]]:
    """Read and check one theme file. Raises ThemeFileError (message without the path) when it is unusable."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ThemeFileError("not UTF-8 text") from None
    except OSError as error:
        raise ThemeFileError(f"cannot be read ({error.strerror or error})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ThemeFileError(f"not valid TOML: {error}") from None
    return theme_from_mapping(data, default_name=path.stem, known=known)


def load_user_themes(directory: Path, reserved: Mapping[str, Theme]) -> tuple[list[Theme], list[str]]:
    """Every usable `*.toml` theme in `directory` (sorted by file name) and the problems found on the way.

    `reserved` holds the themes already available (built-ins); a user theme may `extend` them but not reuse
    their names. A missing directory is not a problem: most users never make one.
    """
    problems: list[str] = []
    themes: list[Theme] = []
    if not directory.is_dir():
        return themes, problems
    known: dict[str, Theme] = dict(reserved)
    try:
        paths: Iterable[Path] = sorted(directory.glob("*.toml"))
    except OSError as error:
        return themes, [f"{directory}: cannot list theme files ({error.strerror or error})"]
    for path in paths:
        try:
            theme, warnings = load_theme_file(path, known)
        except ThemeFileError as error:
            problems.append(f"{path}: {error}")
            continue
        problems.extend(f"{path}: {warning}" for warning in warnings)
        if theme.name in known:
            source = "a built-in theme" if theme.name in reserved else "another theme file"
            problems.append(f"{path}: the name {theme.name!r} is already used by {source}; set another 'name'")
            continue
        known[theme.name] = theme
        themes.append(theme)
    return themes, problems
