"""What the app's screens call to change the config: each call is one atomic rewrite of one file.

Only the keys a call is about change; everything else in the file — settings of a newer version, keys the
user added by hand, comments, blank lines and the order of it all — is written back as it was (tomlkit). A
table is changed in place rather than rebuilt, and a value that is already what it should be is not
touched, so even the comments inside a provider's table stay where the user put them. An API key goes to
credentials.toml (mode 0600), never to config.toml, and is removed from config.toml if the user had put it
there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from ..mcp_server import MCPServer
from ..paths import Paths
from ..provider import ModelInfo, Provider
from ..record import record
from ..skill import Skill
from .files import CONFIG_HEADER, CREDENTIALS_HEADER, read_for_update, write_toml
from .problems import ConfigError

_DEFAULT_CONNECT_TIMEOUT = 10.0
_DEFAULT_READ_TIMEOUT = 300.0


def update_config(paths: Paths, change: Callable[[dict[str, Any]], None]) -> None:
    """Read config.toml, let `change` edit the document in place, write it back atomically."""
    document = read_for_update(paths.config_file)
    change(document)
    write_toml(paths.config_file, document, header=CONFIG_HEADER)


def update_credentials(paths: Paths, change: Callable[[dict[str, Any]], None]) -> None:
    document = read_for_update(paths.credentials_file)
    change(document)
    write_toml(paths.credentials_file, document, header=CREDENTIALS_HEADER, private=True)


# --- providers ----------------------------------------------------------------------------------------------


def add_provider(paths: Paths, provider: Provider, *, api_key: str | None = None) -> None:
    """Add `[providers.<id>]`; raises `ConfigError` when that id is taken (use `update_provider`)."""
    if provider.id in _section(read_for_update(paths.config_file), "providers"):
        raise ConfigError(f"{paths.config_file}: a provider {provider.id!r} exists already")
    save_provider(paths, provider, api_key=api_key)


def update_provider(paths: Paths, provider: Provider, *, api_key: str | None = None) -> None:
    """Rewrite an existing provider; raises `ConfigError` when there is none of that id."""
    if provider.id not in _section(read_for_update(paths.config_file), "providers"):
        raise ConfigError(f"{paths.config_file}: there is no provider {provider.id!r}")
    save_provider(paths, provider, api_key=api_key)


def save_provider(paths: Paths, provider: Provider, *, api_key: str | None = None) -> None:
    """Write the provider's table (adding or replacing it), keeping keys of it the app does not know.

    `api_key`: None leaves a stored key as it is, "" removes it, anything else is stored in credentials.toml.
    """
    read_for_update(paths.config_file)  # a broken config.toml fails here, before the key is stored
    if api_key is not None:
        set_api_key(paths, provider.id, api_key)

    def change(document: dict[str, Any]) -> None:
        providers = _section(document, "providers")
        entry = _section(providers, provider.id)
        entry.pop("api_key", None)  # keys belong in credentials.toml
        _put(entry, "kind", provider.kind)
        _put(entry, "name", provider.name if provider.name != provider.id else "")
        _put(entry, "base_url", provider.base_url)
        _put(entry, "api_key_env", provider.api_key_env)
        _put(entry, "headers", dict(provider.headers))
        _put(entry, "default_model", provider.default_model)
        _put(entry, "connect_timeout", _timeout(provider.connect_timeout, _DEFAULT_CONNECT_TIMEOUT))
        _put(entry, "read_timeout", _timeout(provider.read_timeout, _DEFAULT_READ_TIMEOUT))
        _put(entry, "settings", _toml_safe(dict(provider.settings)))
        old_models = {m.get("id"): m for m in entry.get("models", []) if isinstance(m, dict)}
        _put(entry, "models", [model_entry(m, old_models.get(m.id)) for m in provider.models])

    update_config(paths, change)


def remove_provider(paths: Paths, provider_id: str) -> bool:
    """Remove the provider and its stored key; a default pointing at it is cleared. False if absent."""
    found = False

    def change(document: dict[str, Any]) -> None:
        nonlocal found
        found = _section(document, "providers").pop(provider_id, None) is not None
        if document.get("default_provider") == provider_id:
            document.pop("default_provider", None)
            document.pop("default_model", None)
        if not document.get("providers"):
            document.pop("providers", None)

    update_config(paths, change)
    if paths.credentials_file.exists():
        set_api_key(paths, provider_id, "")
    return found


def set_api_key(paths: Paths, provider_id: str, api_key: str) -> None:
    """Store (or with "" remove) a provider's key in credentials.toml, created with mode 0600."""

    def change(document: dict[str, Any]) -> None:
        providers = _section(document, "providers")
        if api_key:
            _section(providers, provider_id)["api_key"] = api_key
        else:
            entry = providers.get(provider_id)
            if isinstance(entry, dict):
                entry.pop("api_key", None)
                if not entry:
                    providers.pop(provider_id, None)

    update_credentials(paths, change)


def model_entry(model: ModelInfo, old: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A model's config table; keys of the old table the app does not know are kept."""
    from ..providers.windows import CONFIG, LEARNT_KEYS, SOURCE_KEY  # the adapters' package loads after start-up

    entry: dict[str, Any] = _plain(old or {})
    entry.update(_toml_safe({k: v for k, v in model.extra.items() if k not in LEARNT_KEYS}))
    entry["id"] = model.id
    _put(entry, "name", model.name)
    entry["capabilities"] = model.capabilities.names()
    if model.extra.get(SOURCE_KEY, CONFIG) == CONFIG:  # a window learnt is asked again: the server may change
        _put(entry, "context_window", model.context_window)
    _put(entry, "max_output_tokens", model.max_output_tokens)
    _put(entry, "starts_in_thinking", model.starts_in_thinking)
    return entry


def set_default_provider(paths: Paths, provider_id: str, model_id: str | None = None) -> None:
    """Set `default_provider` (and with `model_id`, `default_model`; "" removes it)."""

    def change(document: dict[str, Any]) -> None:
        _put(document, "default_provider", provider_id)
        if model_id is not None:
            _put(document, "default_model", model_id)

    update_config(paths, change)


# --- look and keys ------------------------------------------------------------------------------------------


def set_theme(paths: Paths, theme: str) -> None:
    update_config(paths, lambda document: _put(document, "theme", theme))


def set_key_binding(paths: Paths, action: str, keys: str | None) -> None:
    """Override the key(s) of an action (`"ctrl+s"` or `"ctrl+s,f2"`); None returns it to the default."""

    def change(document: dict[str, Any]) -> None:
        section = _section(document, "keys")
        if keys:
            section[action] = keys
        else:
            section.pop(action, None)
        if not section:
            document.pop("keys", None)

    update_config(paths, change)


def set_prompt_dir(paths: Paths, folder: str | Path | None) -> None:
    update_config(paths, lambda document: _put(document, "prompt_dir", str(folder) if folder else ""))


def set_max_tool_rounds(paths: Paths, rounds: int) -> None:
    if rounds < 1:
        raise ConfigError("max_tool_rounds must be at least 1")
    update_config(paths, lambda document: _section(document, "run").__setitem__("max_tool_rounds", rounds))


def set_package_tool(paths: Paths, key: str, *, enabled: bool | None = None, allowed: bool | None = None) -> None:
    """Enable a package tool for every dialog (`[tools] enabled`) and/or let it run without asking
    (`[tools] allow`); None leaves that list as it is."""

    def change(document: dict[str, Any]) -> None:
        section = _section(document, "tools")
        for name, wanted in (("enabled", enabled), ("allow", allowed)):
            if wanted is None:
                continue
            current = [str(item) for item in section.get(name, [])]
            updated = [*current, key] if wanted and key not in current else current
            if not wanted:
                updated = [item for item in current if item != key]
            _put(section, name, updated)
        if not section:
            document.pop("tools", None)

    update_config(paths, change)


# --- skills -------------------------------------------------------------------------------------------------


def save_skill(paths: Paths, skill: Skill) -> None:
    """Write `[skills.<name>]` with the skill's text (a `file = ...` entry is replaced by the text)."""

    def change(document: dict[str, Any]) -> None:
        entry = _section(_section(document, "skills"), skill.name)
        entry.pop("file", None)
        _put(entry, "content", skill.content, keep_empty=True)
        _put(entry, "description", skill.description)

    update_config(paths, change)


def remove_skill(paths: Paths, name: str) -> bool:
    return _remove_entry(paths, "skills", name)


# --- MCP servers --------------------------------------------------------------------------------------------


def mcp_entry(server: MCPServer) -> dict[str, Any]:
    """A server's config table: its JSON form without the name (the table's key), `${VAR}` kept."""
    entry = server.to_json()
    entry.pop("name", None)
    return entry


def add_mcp_server(paths: Paths, server: MCPServer, *, replace: bool = False) -> None:
    """Write `[mcp_servers.<name>]`; raises `ConfigError` if the name is taken and `replace` is False."""

    def change(document: dict[str, Any]) -> None:
        section = _section(document, "mcp_servers")
        if server.name in section and not replace:
            raise ConfigError(f"{paths.config_file}: an MCP server {server.name!r} exists already")
        _replace_table(section, server.name, mcp_entry(server))

    update_config(paths, change)


def remove_mcp_server(paths: Paths, name: str) -> bool:
    return _remove_entry(paths, "mcp_servers", name)


@record
class ImportedServers:
    """What `import_mcp_servers` did: servers added, and those skipped because the name existed."""

    added: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def import_mcp_servers(
    paths: Paths, source: Path | str | Mapping[str, Any], *, replace: bool = False
) -> ImportedServers:
    """Add the servers of a Claude-Desktop style JSON file (`{"mcpServers": {...}}`) or document.

    Nothing is written when any entry is invalid: the error names the file and the server.
    """
    # engine.mcp is imported here, not at start-up: the config loads on every launch, an import is rare.
    from ..mcp.importing import load_mcp_servers_file, mcp_servers_from_document

    try:
        if isinstance(source, Path | str):
            servers = load_mcp_servers_file(source)
        else:
            servers = mcp_servers_from_document(source, "the imported document")
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    result = ImportedServers()

    def change(config: dict[str, Any]) -> None:
        section = _section(config, "mcp_servers")
        for server in servers:
            if server.name in section and not replace:
                result.skipped.append(server.name)
                continue
            _replace_table(section, server.name, mcp_entry(server))
            result.added.append(server.name)

    update_config(paths, change)
    return result


# --- helpers ------------------------------------------------------------------------------------------------


def _section(document: dict[str, Any], name: str) -> dict[str, Any]:
    """The table `name` of `document`, made (empty) when missing or not a table."""
    import tomlkit  # loaded when something is written (see `files`)

    value = document.get(name)
    if not isinstance(value, dict):
        document[name] = tomlkit.table()
        value = document[name]
    return value


def _replace_table(section: dict[str, Any], name: str, values: Mapping[str, Any]) -> None:
    """Make `section[name]` hold exactly `values`, in place: keys whose value stays keep their comments."""
    table = _section(section, name)
    for key in [key for key in table if key not in values]:
        del table[key]
    for key, value in values.items():
        _put(table, key, value, keep_empty=True)


def _remove_entry(paths: Paths, section_name: str, name: str) -> bool:
    found = False

    def change(document: dict[str, Any]) -> None:
        nonlocal found
        section = _section(document, section_name)
        found = section.pop(name, None) is not None
        if not section:
            document.pop(section_name, None)

    update_config(paths, change)
    return found


def _put(table: dict[str, Any], key: str, value: Any, *, keep_empty: bool = False) -> None:
    """Set a key, or remove it when the value is empty/default: the file lists only what was chosen.

    A key that already holds `value` is left alone, so its formatting and comments stay as the user wrote them.
    """
    if not keep_empty and (value is None or value == "" or value == {} or value == [] or value is False or value == 0):
        table.pop(key, None)
    elif key not in table or _plain(table[key]) != _plain(value):
        table[key] = value


def _plain(value: Any) -> Any:
    """A tomlkit item as plain Python (dicts, lists, str, numbers), for comparing and copying."""
    unwrap = getattr(value, "unwrap", None)
    if unwrap is not None:
        return unwrap()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _timeout(value: float, default: float) -> float | None:
    return None if value == default else value


def _toml_safe(value: Any) -> Any:
    """TOML has no null: drop None values (recursively) instead of failing the whole write."""
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_toml_safe(v) for v in value if v is not None]
    return value
