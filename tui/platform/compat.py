"""What each shim of the seam was checked against, and the check that keeps a shim off on any other Textual.

The shims reach into Textual (and Rich) where they have no public way to do what the app needs; each names
the upstream report that would make it unneeded (docs/upstream/). A private may change in any release, and
without a check the first sign would be an AttributeError inside a frame on a user's machine. So a shim is
installed only if `enabled(name)` finds the installed Textual as the shim was checked on: the same minor
series (pyproject.toml pins it), every private it uses present, and every function it patches or forks taking
the same parameters (`inspect.signature`, annotations left out). Otherwise the shim stays off — Textual's own
path — and the app's log says so in one line.

This module only reads: it imports Textual when asked, and patches nothing. It runs on the way to the first
frame, so it reads Textual's version from the name of its `.dist-info` folder (`importlib.metadata` and its
email parser cost more than the whole check) and a function's constants rather than its source (`inspect`'s
source reader loads the tokenizer).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from visindigo.engine.record import record

log = logging.getLogger(__name__)

#: The Textual minor series every shim was checked on (pyproject.toml pins `textual>=8.2.8,<8.3`).
TEXTUAL_SERIES = "8.2"
#: The releases the table below was last read against, for the record.
CHECKED_ON = {"textual": "8.2.8", "rich": "15.0.0"}


@record(frozen=True)
class Private:
    """A private name a shim relies on.

    `owner` is a module ("textual.reactive") or a class in one ("textual.widget:Widget"); `parameters` the
    parameters a patched or forked function had (`inspect.signature` without annotations), None for a name
    that is only read; `instance`: an attribute the owner's `__init__` sets (a dotted path for one further
    in, "console._color_system"), checked on an instance when the shim is given one; `has`: attributes the
    named object itself must have (the fault a shim repairs is gone without them); `mentions`: names its
    source must still contain (an attribute it stores by name, on objects no check can be given in advance).
    """

    owner: str
    name: str
    parameters: str | None = None
    instance: bool = False
    has: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()


@record(frozen=True)
class Shim:
    """One shim: the privates it uses, what it replaces in Textual for the whole process, its upstream report."""

    name: str
    upstream: str
    uses: tuple[Private, ...]
    #: (owner, name) of each Textual function it replaces process-wide (per-app shims replace none).
    patches: tuple[tuple[str, str], ...] = ()


def fields_of(owner: str, *names: str) -> tuple[Private, ...]:
    """Attributes that `owner`'s `__init__` sets (checked on an instance)."""
    return tuple(Private(owner, name, instance=True) for name in names)


WIDGET = "textual.widget:Widget"
APP = "textual.app:App"
DRIVER = "textual.drivers.linux_driver:LinuxDriver"
PARSER = "textual._xterm_parser:XTermParser"
STYLES_CACHE = "textual._styles_cache:StylesCache"

SHIMS: dict[str, Shim] = {
    shim.name: shim
    for shim in (
        Shim(
            "layout_once",
            "docs/upstream/second-layout-pass.md",
            (Private(WIDGET, "_size_updated", "(self, size, virtual_size, container_size, layout=True)"),),
            patches=((WIDGET, "_size_updated"),),
        ),
        Shim(
            "styles_cache",
            "docs/upstream/styles-cache-leak.md",
            (Private(STYLES_CACHE, "get_inner_outer", "(cls, base_background, background)", has=("cache_clear",)),),
            patches=((STYLES_CACHE, "get_inner_outer"),),
        ),
        Shim(
            "watchers",
            "docs/upstream/watchers-of-removed-widgets.md",
            (
                Private(
                    "textual.dom",
                    "_watch",
                    "(node, obj, attribute_name, callback, *, init=True)",
                    mentions=('"__watchers"',),
                ),
                Private("textual.message_pump:MessagePump", "_closing", instance=True),
            ),
            patches=(("textual.dom", "_watch"),),
        ),
        Shim(
            "terminal_driver",
            "docs/upstream/driver-eof-eio.md",
            (
                Private(DRIVER, "__init__", "(self, app, *, debug=False, mouse=True, size=None)"),
                Private(DRIVER, "run_input_thread", "(self)"),
                *fields_of(DRIVER, "_file", "_app", "_loop", "_debug", "exit_event", "fileno"),
                Private("textual._loop", "loop_last", "(values)"),
                Private("textual._parser", "ParseError"),
                Private(PARSER, "__init__", "(self, debug=False)"),
                Private(PARSER, "feed", "(self, data)"),
                Private(PARSER, "tick", "(self)"),
            ),
        ),
        Shim(
            "output_stage",
            "docs/upstream/output-stage.md",
            (
                Private(APP, "_display", "(self, screen, renderable)"),
                Private(APP, "_begin_update", "(self)"),
                Private(APP, "_end_update", "(self)"),
                Private(APP, "_handle_exception", "(self, error)"),
                *fields_of(APP, "_driver", "_running", "_closed", "_batch_count", "console._color_system"),
                Private("textual._compositor:LayoutUpdate", "__init__", "(self, strips, region)"),
                Private("textual._compositor:ChopsUpdate", "__init__", "(self, chops, spans, chop_ends)"),
                Private("rich.style:Style", "_ansi"),
            ),
        ),
        Shim("graphics", "docs/upstream/terminal-write.md", fields_of(APP, "_driver")),
        Shim(
            "crash",
            "docs/upstream/crash-hook.md",
            (
                Private(APP, "_handle_exception", "(self, error)"),
                Private(APP, "_fatal_error", "(self)"),
                Private(APP, "_close_messages_no_wait", "(self)"),
                Private(APP, "_exit_renderables", instance=True),
            ),
        ),
        Shim(
            "text_area_cursor",
            "docs/upstream/text-area-cursor.md",
            (
                Private("textual.widgets:TextArea", "_draw_cursor"),
                Private("textual.widgets:TextArea", "_theme", instance=True),
            ),
        ),
        Shim(
            "start_theme",
            "docs/upstream/theme-before-start.md",
            (Private(APP, "_refresh_truecolor_filter", "(self, theme)"),),
        ),
        Shim(
            "inherit_bindings",
            "docs/upstream/inherit-bindings.md",
            (Private("textual.dom:DOMNode", "_inherit_bindings"),),
        ),
    )
}

#: Textual's own object for each (owner, name) a shim replaced, as found before it was replaced.
_originals: dict[tuple[str, str], Any] = {}
#: Shims found off, with why (each logged once).
_off: dict[str, str] = {}
#: Shims whose class-level privates were found as checked (only instance attributes are looked at again).
_found: set[str] = set()
_series_checked: list[str | None] = []


def textual_version() -> str:
    """The installed Textual's version ("" if its metadata cannot be read): the one beside the imported package
    (`textual-8.2.8.dist-info`), else what `importlib.metadata` finds (an egg, a zip, two versions side by side)."""
    return dist_info_version("textual") or _metadata_version("textual")


def dist_info_version(name: str) -> str:
    """The version in the name of the one `<name>-<version>.dist-info` folder beside the imported package `name`,
    or "" (not imported from a folder, no such folder, or more than one)."""
    module = sys.modules.get(name) or importlib.import_module(name)
    package: str | None = getattr(module, "__file__", None)
    if not package:
        return ""
    folder = os.path.dirname(os.path.dirname(package))
    try:
        names = [entry for entry in os.listdir(folder) if entry.startswith(name + "-") and entry.endswith(".dist-info")]
    except OSError:
        return ""
    if len(names) != 1:
        return ""
    return names[0][len(name) + 1 : -len(".dist-info")]


def _metadata_version(name: str) -> str:
    import importlib.metadata

    try:
        return str(importlib.metadata.version(name))
    except importlib.metadata.PackageNotFoundError:
        return ""


def series_problem() -> str | None:
    """Why no shim may be installed on this Textual (a version outside the checked series), or None."""
    if not _series_checked:
        version = textual_version()
        series = ".".join(version.split(".")[:2])
        problem = None
        if series != TEXTUAL_SERIES:
            problem = (
                f"Textual {version or '(unknown version)'} is not the {TEXTUAL_SERIES} series the seam was checked on"
            )
            log.warning("%s: every Textual shim is off, Textual's own paths are used", problem)
        _series_checked.append(problem)
    return _series_checked[0]


def enabled(name: str, instance: object | None = None) -> bool:
    """May shim `name` be installed (with `instance`'s attributes checked too, when given)? Logs once when not."""
    if series_problem() is not None:
        return False
    if name in _off:
        return False
    shim = SHIMS[name]
    if name in _found and instance is None:
        return True
    uses = [private for private in shim.uses if private.instance] if name in _found else shim.uses
    why = problem(uses, instance)
    if why is None:
        _found.add(name)
        return True
    _off[name] = why
    log.warning("the %s shim is off, Textual's own path is used: %s (see %s)", name, why, shim.upstream)
    return False


def problem(uses: Iterable[Private], instance: object | None = None) -> str | None:
    """The first difference between `uses` and the installed Textual, or None."""
    for private in uses:
        owner = resolve(private.owner)
        if owner is None:
            return f"{private.owner} is gone"
        if private.instance:
            if instance is None or not isinstance(instance, owner):
                continue
            if not _has_path(instance, private.name):
                return f"{private.owner} objects have no {private.name}"
            continue
        if not _has_path(owner, private.name):
            return f"{private.owner} has no {private.name}"
        found = getattr(owner, private.name)
        if (private.owner, private.name) in _originals:  # replaced by a shim: Textual's own is what was checked
            found = _originals[(private.owner, private.name)]
        for attribute in private.has:
            if not hasattr(found, attribute):
                return f"{private.owner}.{private.name} has no {attribute} (the fault may be fixed)"
        if private.parameters is not None:
            now = parameters(found)
            if now != private.parameters:
                return f"{private.owner}.{private.name} takes {now}, checked with {private.parameters}"
        if private.mentions:
            used = set(_code_strings(getattr(found, "__code__", None)))
            for name in private.mentions:
                if name.strip("\"'") not in used:
                    return f"{private.owner}.{private.name} no longer uses {name}"
    return None


def _code_strings(code: Any) -> Iterator[str]:
    """The string constants and names a function's code uses, nested functions' included."""
    if code is None:
        return
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, str):
            yield constant
        elif hasattr(constant, "co_consts"):
            yield from _code_strings(constant)


@functools.cache
def resolve(owner: str) -> Any:
    """The module or class `owner` names ("module" or "module:Class"), or None if the installed Textual has none."""
    module_name, _, qualname = owner.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError:
        return None
    for part in filter(None, qualname.split(".")):
        found = getattr(found, part, None)
        if found is None:
            return None
    return found


def parameters(function: Any) -> str:
    """A function's parameters as `inspect.signature` gives them, without annotations ("?" if it has none)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return "?"
    bare = [parameter.replace(annotation=inspect.Parameter.empty) for parameter in signature.parameters.values()]
    return str(signature.replace(parameters=bare, return_annotation=inspect.Signature.empty))


def _has_path(thing: object, path: str) -> bool:
    for part in path.split("."):
        try:
            thing = inspect.getattr_static(thing, part)
        except AttributeError:
            return False
    return True


def replace(owner: str, name: str, new: Any) -> Any:
    """Set `owner`'s `name` to `new` for the whole process, keeping Textual's own (returned; idempotent)."""
    target = resolve(owner)
    original = _originals.setdefault((owner, name), inspect.getattr_static(target, name))
    setattr(target, name, new)
    return original


def original(owner: str, name: str) -> Any:
    """Textual's own object for what a shim replaced (what is there now, if nothing replaced it)."""
    return _originals.get((owner, name), inspect.getattr_static(resolve(owner), name))


def patched_targets() -> list[tuple[str, str]]:
    """Every (owner, name) some shim replaces process-wide."""
    return [target for shim in SHIMS.values() for target in shim.patches]


def off() -> dict[str, str]:
    """The shims found off so far, with why."""
    return dict(_off)


def reset() -> None:
    """Forget what was found (for tests that fake another Textual)."""
    _off.clear()
    _found.clear()
    _series_checked.clear()
    resolve.cache_clear()
