"""The configuration as read: validated data, plus the engine objects it describes.

`Config.data` is the config file's document with invalid entries removed; the builders turn its sections into
`Provider`, `Skill` and `MCPServer` objects. API keys live apart in `Credentials`, whose repr shows no key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from ..capability import Capability
from ..mcp_server import MCPServer
from ..provider import ModelInfo, Provider
from ..record import record
from ..skill import Skill
from .problems import ConfigProblem

DEFAULT_THEME = "visindigo-dark"
_MODEL_KEYS = {"id", "name", "capabilities", "context_window", "max_output_tokens", "starts_in_thinking"}


class Credentials:
    """API keys by provider id, from the credentials file; never printed."""

    def __init__(self, keys: Mapping[str, str] | None = None) -> None:
        self._keys = dict(keys or {})

    def __repr__(self) -> str:
        return f"Credentials({len(self._keys)} key(s))"

    def get(self, provider_id: str) -> str | None:
        return self._keys.get(provider_id) or None

    def __contains__(self, provider_id: object) -> bool:
        return provider_id in self._keys


@record
class Config:
    """Everything config.toml (and credentials.toml) say, as far as it is valid."""

    config_file: Path
    #: Left out of the repr: a key pasted into config.toml (or a literal `Authorization` header) must not reach
    #: a log or a crash report's list of local variables.
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    credentials: Credentials = field(default_factory=Credentials)
    skills: list[Skill] = field(default_factory=list)
    mcp_servers: list[MCPServer] = field(default_factory=list)
    problems: list[ConfigProblem] = field(default_factory=list)

    @property
    def default_provider(self) -> str:
        return str(self.data.get("default_provider", ""))

    @property
    def default_model(self) -> str:
        return str(self.data.get("default_model", ""))

    @property
    def theme(self) -> str:
        return str(self.data.get("theme", DEFAULT_THEME))

    @property
    def keys(self) -> dict[str, str]:
        """Key overrides: action id -> key(s), as the TUI's keymap takes them."""
        return dict(self.data.get("keys", {}))

    @property
    def max_tool_rounds(self) -> int | None:
        """`[run] max_tool_rounds`, or None to let the run loop use its own default."""
        value = self.data.get("run", {}).get("max_tool_rounds")
        return int(value) if value is not None else None

    @property
    def max_tool_calls(self) -> int | None:
        """`[run] max_tool_calls` (tool calls run per reply), or None for the run loop's default."""
        value = self.data.get("run", {}).get("max_tool_calls")
        return int(value) if value is not None else None

    @property
    def prompt_dir(self) -> Path:
        """The prompt-template folder; a relative path is relative to the config file's folder."""
        configured = self.data.get("prompt_dir")
        if not configured:
            return self.config_file.parent / "prompts"
        path = Path(str(configured)).expanduser()
        return path if path.is_absolute() else self.config_file.parent / path

    @property
    def enabled_tools(self) -> list[str]:
        """Package tools (entry-point names of `visindigo.tools`) enabled for every dialog; none by default."""
        return [str(name) for name in self.data.get("tools", {}).get("enabled", [])]

    @property
    def allowed_tools(self) -> list[str]:
        """Package tools that run without asking first (like an MCP server's `approval = "allow"`)."""
        return [str(name) for name in self.data.get("tools", {}).get("allow", [])]

    @property
    def user(self) -> dict[str, Any]:
        """`[user]`: name, language and location for templates' USER_* variables."""
        return dict(self.data.get("user", {}))

    @property
    def provider_ids(self) -> list[str]:
        return list(self.data.get("providers", {}))

    def providers(self) -> list[Provider]:
        """New `Provider` objects, keys from the credentials file attached."""
        return [
            build_provider(provider_id, entry, self.credentials.get(provider_id))
            for provider_id, entry in self.data.get("providers", {}).items()
        ]


def build_model(entry: Mapping[str, Any]) -> ModelInfo:
    """A model from its config table; keys the app does not know go to `extra` (and back on save)."""
    return ModelInfo(
        id=str(entry["id"]),
        name=str(entry.get("name", "")),
        capabilities=Capability.from_names(entry.get("capabilities", ["text"])) or Capability.TEXT,
        context_window=int(entry.get("context_window", 0)),
        max_output_tokens=int(entry.get("max_output_tokens", 0)),
        starts_in_thinking=bool(entry.get("starts_in_thinking", False)),
        extra={k: v for k, v in entry.items() if k not in _MODEL_KEYS},
    )


def build_provider(provider_id: str, entry: Mapping[str, Any], api_key: str | None = None) -> Provider:
    """A provider from its config table; `api_key` (from credentials) wins over a key written in the table."""
    options: dict[str, Any] = {}
    for key in ("connect_timeout", "read_timeout"):
        if key in entry:
            options[key] = float(entry[key])
    return Provider(
        provider_id,
        kind=str(entry["kind"]),
        name=str(entry.get("name", "")),
        base_url=str(entry.get("base_url", "")),
        api_key=api_key or entry.get("api_key") or None,
        api_key_env=str(entry.get("api_key_env", "")),
        headers=dict(entry.get("headers", {})),
        models=[build_model(m) for m in entry.get("models", [])],
        default_model=str(entry.get("default_model", "")),
        settings=dict(entry.get("settings", {})),
        **options,
    )
