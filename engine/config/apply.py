"""Putting a configuration into a Center: providers, default provider and model, skills, MCP servers, settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from .model import Config

if TYPE_CHECKING:
    from ..function import Function
    from ..mcp_server import MCPServer
    from ..paths import Paths
    from ..provider import Provider
    from ..skill import Skill


class ConfigTarget(Protocol):
    """What a configuration is put into: the Center (named here so the config need not import it)."""

    default_provider_id: str
    settings: dict[str, Any]
    config: Config | None

    def add_provider(self, provider: Provider) -> object: ...

    def get_provider(self, provider_id: str) -> Provider | None: ...

    @property
    def default_provider(self) -> Provider | None: ...

    def add_skill(self, skill: Skill) -> object: ...

    def add_mcp(self, server: MCPServer) -> object: ...

    def get_function(self, function_id: str) -> Function | None: ...

    def add_function(self, function: Function | None) -> object: ...


def apply_config(center: ConfigTarget, config: Config) -> None:
    """Register what the config describes; items of the same id or name already in the Center are replaced.

    `center.settings` receives `theme`, `keys` (key overrides), `prompt_dir` (a path string) and
    `default_model` for the TUI and the template loader, and `max_tool_rounds` (when configured) for the run
    loop.
    """
    for provider in config.providers():
        center.add_provider(provider)
    if config.default_provider and center.get_provider(config.default_provider) is not None:
        center.default_provider_id = config.default_provider
    default = center.default_provider
    if default is not None and config.default_model:
        default.default_model = config.default_model
    for skill in config.skills:
        center.add_skill(skill)
    for server in config.mcp_servers:
        center.add_mcp(server)
    center.settings.update(
        theme=config.theme,
        keys=config.keys,
        prompt_dir=str(config.prompt_dir),
        default_model=config.default_model,
    )
    context = config.data.get("context")
    if isinstance(context, dict):
        center.settings["context"] = dict(context)  # compaction and prompt caching (engine.context)
    if config.max_tool_rounds is not None:
        center.settings["max_tool_rounds"] = config.max_tool_rounds
    if config.max_tool_calls is not None:
        center.settings["max_tool_calls"] = config.max_tool_calls
    if config.enabled_tools:
        _add_package_tools(center, config)
    center.config = config


def _add_package_tools(center: ConfigTarget, config: Config) -> None:
    """The package tools enabled for every dialog (`[tools] enabled`); a failure is a config problem."""
    from ..plugins import load_enabled
    from .problems import ConfigProblem

    tools, problems = load_enabled(config.enabled_tools, config.allowed_tools)
    for tool in tools:
        if center.get_function(tool.id) is None:
            center.add_function(tool)
        else:
            problems.append(f"tools.enabled: {tool.entry.package} offers {tool.id!r}, which another tool has already")
    config.problems.extend(ConfigProblem(config.config_file, "tools", problem) for problem in problems)


T = TypeVar("T", bound="ConfiguredTarget")


class ConfiguredTarget(ConfigTarget, Protocol):
    """A Center as `configured` fills it in."""

    paths: Paths | None
    notices: list[str]


def configured(cls: Callable[[], T], paths: Paths) -> T:
    """A new Center configured from the config file of `paths`, without a store (`attach_store` adds one); the
    config's problems are its `notices`. `visindigo ask` sends a new question with this alone, then opens the
    store (`engine.storage.opening.open_store`)."""
    from .load import load_config

    config, problems = load_config(paths)
    center = cls()
    center.paths = paths
    apply_config(center, config)
    center.notices = [str(problem) for problem in problems]
    return center
