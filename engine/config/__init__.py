"""Configuration: config.toml (settings) and credentials.toml (API keys), read, validated and written.

Read with `load_config(paths) -> (Config, problems)`; put into a Center with `apply_config(center, config)`;
change with the writer functions (each an atomic rewrite that keeps unknown keys). The file format is
described in docs/configuration.md (and, key by key, in the generated configuration reference).
"""

from .apply import apply_config
from .load import load_config
from .model import Config, Credentials, build_model, build_provider
from .problems import ConfigError, ConfigProblem
from .write import (
    ImportedServers,
    add_mcp_server,
    add_provider,
    import_mcp_servers,
    remove_mcp_server,
    remove_provider,
    remove_skill,
    save_provider,
    save_skill,
    set_api_key,
    set_default_provider,
    set_key_binding,
    set_max_tool_rounds,
    set_package_tool,
    set_prompt_dir,
    set_theme,
    update_config,
    update_provider,
)

__all__ = [
    "Config",
    "ConfigError",
    "ConfigProblem",
    "Credentials",
    "ImportedServers",
    "add_mcp_server",
    "add_provider",
    "apply_config",
    "build_model",
    "build_provider",
    "import_mcp_servers",
    "load_config",
    "remove_mcp_server",
    "remove_provider",
    "remove_skill",
    "save_provider",
    "save_skill",
    "set_api_key",
    "set_default_provider",
    "set_key_binding",
    "set_max_tool_rounds",
    "set_package_tool",
    "set_prompt_dir",
    "set_theme",
    "update_config",
    "update_provider",
]
