"""Tools from installed packages: the `visindigo.tools` entry-point group.

A package offers tools by naming, in its metadata, either a function (typed parameters and a docstring are
enough, as for `@command`), a `Command`, or a `CommandProvider` (a class whose instances, or an instance
whose `get_commands()`, yield `@command` methods):

    [project.entry-points."visindigo.tools"]
    weather = "visindigo_weather:get_weather"

Nothing from a package runs until the user enables one of its tools: `discover_tools()` reads the metadata
only, and a tool's code is imported when it is enabled (`load_tool`) — in the tools screen for one dialog or
globally (`[tools] enabled = [...]` in config.toml). Like an MCP tool, a package tool asks before each call
unless its id is in `[tools] allow`. A package that fails to import, or offers something that is not a tool,
is reported with its name and never stops the app.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from .commands import Command, command
from .function import Function, InvalidFunctionId, check_function_id

GROUP = "visindigo.tools"
log = logging.getLogger(__name__)


class PluginError(Exception):
    """An entry point that cannot be used; the message names the package and the reason."""


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One entry point of the group, as the metadata describes it (nothing imported yet)."""

    key: str
    package: str
    version: str
    target: str
    entry_point: metadata.EntryPoint = field(repr=False, compare=False)


@dataclass
class DiscoveredTools:
    tools: list[ToolEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def discover_tools(entry_points: Iterable[metadata.EntryPoint] | None = None) -> DiscoveredTools:
    """The group's entry points, sorted by name; duplicate names are problems (the first one wins)."""
    found = DiscoveredTools()
    points = list(metadata.entry_points(group=GROUP) if entry_points is None else entry_points)
    seen: dict[str, str] = {}
    for point in sorted(points, key=lambda p: p.name):
        package = point.dist.name if point.dist is not None else "?"
        version = point.dist.version if point.dist is not None else ""
        if point.name in seen:
            found.problems.append(f"{package}: a tool {point.name!r} is offered by {seen[point.name]} already")
            continue
        seen[point.name] = package
        found.tools.append(ToolEntry(point.name, package, version, point.value, point))
    return found


class PluginTool(Function):
    """A package's command as a `Function` that asks before each call unless allowed."""

    def __init__(self, inner: Function, entry: ToolEntry, *, allowed: bool = False) -> None:
        self.inner = inner
        self.entry = entry
        self.requires_approval = not allowed

    @property
    def id(self) -> str:
        return self.inner.id

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def description(self) -> str:
        return self.inner.description

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return self.inner.parameter_schema

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.inner.invoke(arguments)

    async def invoke_async(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.inner.invoke_async(arguments)


def load_tool(entry: ToolEntry, *, allowed: Iterable[str] = ()) -> list[PluginTool]:
    """Import the entry point and make its functions; raises `PluginError` with the package named."""
    try:
        target = entry.entry_point.load()
    except Exception as error:  # a broken package must not take the app with it
        log.warning("cannot load tool %s from %s", entry.key, entry.package, exc_info=True)
        raise PluginError(f"{entry.package}: {entry.key} cannot be loaded ({type(error).__name__}: {error})") from None
    try:
        functions = _functions_of(target)
        for function in functions:
            check_function_id(function.id)
    except (InvalidFunctionId, TypeError, ValueError) as error:
        raise PluginError(f"{entry.package}: {entry.key} is not a usable tool ({error})") from None
    allowed_ids = set(allowed)
    return [PluginTool(f, entry, allowed=f.id in allowed_ids or entry.key in allowed_ids) for f in functions]


def _functions_of(target: Any) -> list[Function]:
    if isinstance(target, Function):
        return [target]
    if inspect.isclass(target):
        target = target()
    commands = getattr(target, "get_commands", None)
    if callable(commands):
        found = list(commands())
        if not all(isinstance(c, Function) for c in found):
            raise TypeError("get_commands() must yield commands")
        return found
    if callable(target):
        made: Command = command()(target)
        return [made]
    raise TypeError(f"{type(target).__name__} is neither a function, a command nor a command provider")


def load_enabled(enabled: Iterable[str], allowed: Iterable[str] = ()) -> tuple[list[PluginTool], list[str]]:
    """The tools of the enabled entry points (by entry-point name), and one problem per failure."""
    wanted = list(enabled)
    if not wanted:
        return [], []
    found = discover_tools()
    by_key = {entry.key: entry for entry in found.tools}
    tools: list[PluginTool] = []
    problems = list(found.problems)
    allowed_ids = list(allowed)
    for key in wanted:
        entry = by_key.get(key)
        if entry is None:
            problems.append(f"tools.enabled: no installed package offers a tool {key!r}")
            continue
        try:
            tools.extend(load_tool(entry, allowed=allowed_ids))
        except PluginError as error:
            problems.append(str(error))
    return tools, problems
