"""Putting a configuration into a Center: providers, default provider and model, skills, MCP servers, settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from .model import Config

if TYPE_CHECKING:
    from ..mcp_server import MCPServer
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
    if config.max_tool_rounds is not None:
        center.settings["max_tool_rounds"] = config.max_tool_rounds
    center.config = config
