"""Reading config.toml and credentials.toml into a `Config`, collecting problems instead of failing.

Whatever is wrong — a syntax error, a mistyped value, a missing skill file, a key file others can read — is
reported with the file and the key, and the app starts with what remains.
"""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

from ..mcp_server import MCPServer
from ..paths import CREDENTIALS_FILE_NAME, Paths
from ..secrets import key_problem
from ..skill import Skill
from .files import is_private, read_toml
from .model import Config, Credentials
from .problems import ConfigProblem, dotted
from .schema import CONFIG_SCHEMA, CREDENTIALS_SCHEMA
from .validate import validate

log = logging.getLogger(__name__)


def load_config(paths: Paths | Path | str) -> tuple[Config, list[ConfigProblem]]:
    """The configuration and its problems. A missing file is an empty configuration, not a problem."""
    config_file = paths.config_file if isinstance(paths, Paths) else Path(paths)
    credentials_file = config_file.parent / CREDENTIALS_FILE_NAME
    problems: list[ConfigProblem] = []
    raw: dict[str, Any] = {}
    data = _read_validated(config_file, CONFIG_SCHEMA, problems, raw)
    credentials = _read_credentials(credentials_file, problems)
    config = Config(config_file=config_file, data=data, credentials=credentials)
    raw_providers = raw.get("providers")
    _check_providers(config, problems, set(raw_providers) if isinstance(raw_providers, dict) else set())
    config.skills = _build_skills(config, problems)
    config.mcp_servers = _build_mcp_servers(config, problems)
    config.problems = problems
    for problem in problems:
        log.warning("%s", problem)
    return config, problems


def _read_validated(
    path: Path, schema: dict[str, Any], problems: list[ConfigProblem], raw: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The file's valid part; `raw` (when given) receives the document as written."""
    try:
        document = read_toml(path)
    except tomllib.TOMLDecodeError as exc:
        problems.append(
            ConfigProblem(path, "", f"not valid TOML ({exc}); none of its settings are used until it is fixed")
        )
        return {}
    except OSError as exc:
        problems.append(ConfigProblem(path, "", f"cannot be read ({exc.strerror or exc})"))
        return {}
    if document is None:
        return {}
    if raw is not None:
        raw.update(document)
    valid, found = validate(document, schema, path)
    problems.extend(found)
    return valid


def _read_credentials(path: Path, problems: list[ConfigProblem]) -> Credentials:
    data = _read_validated(path, CREDENTIALS_SCHEMA, problems)
    if data and not is_private(path):
        problems.append(ConfigProblem(path, "", f"other users can read this file of API keys; run: chmod 600 {path}"))
    keys = {}
    for provider_id, entry in data.get("providers", {}).items():
        key = entry.get("api_key")
        if not isinstance(key, str) or not key:
            continue
        problem = key_problem(key.strip())
        if problem is not None:
            where = dotted(("providers", provider_id, "api_key"))
            problems.append(ConfigProblem(path, where, f"the key {problem}; it is not used"))
            continue
        keys[provider_id] = key
    return Credentials(keys)


def _check_providers(config: Config, problems: list[ConfigProblem], written: set[str]) -> None:
    providers = config.data.get("providers", {})
    for provider_id, entry in providers.items():
        key = entry.get("api_key")
        problem = key_problem(key.strip()) if isinstance(key, str) else None
        if problem is not None:
            where = dotted(("providers", provider_id, "api_key"))
            problems.append(ConfigProblem(config.config_file, where, f"the key {problem}; it is not used"))
            entry.pop("api_key")
        elif entry.get("api_key"):
            problems.append(
                ConfigProblem(
                    config.config_file,
                    dotted(("providers", provider_id, "api_key")),
                    "an API key in the config file can be read by anyone who can read the file; it is used, "
                    "but set it from the app (it goes to credentials.toml, mode 0600) or use api_key_env",
                )
            )
    default = config.default_provider
    if default and default not in providers:
        if default in written:
            what = f"the provider {default!r} has a problem (see above)"
        else:
            what = f"no provider {default!r} is configured"
            what += f" (configured: {', '.join(providers)})" if providers else ""
        if providers:
            what += "; the first one is used"
        problems.append(ConfigProblem(config.config_file, "default_provider", what))
        config.data.pop("default_provider", None)


def _build_skills(config: Config, problems: list[ConfigProblem]) -> list[Skill]:
    skills = []
    for name, entry in config.data.get("skills", {}).items():
        content = entry.get("content")
        if content is None:
            path = Path(entry["file"]).expanduser()
            if not path.is_absolute():
                path = config.config_file.parent / path
            try:
                content = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                problems.append(
                    ConfigProblem(
                        config.config_file,
                        dotted(("skills", name, "file")),
                        f"cannot read {path} ({reason}); the skill is ignored",
                    )
                )
                continue
        skills.append(Skill(name=name, content=content, description=entry.get("description", "")))
    return skills


def _build_mcp_servers(config: Config, problems: list[ConfigProblem]) -> list[MCPServer]:
    """`[mcp_servers.NAME]` and `[mcpServers.NAME]` (the other clients' spelling) alike; a name in both is
    taken from `mcp_servers` and the other reported. Keys this client does not read are reported, not fatal."""
    servers: list[MCPServer] = []
    seen: set[str] = set()
    for section in ("mcp_servers", "mcpServers"):
        for name, entry in config.data.get(section, {}).items():
            where = dotted((section, name))
            if name in seen:
                problems.append(
                    ConfigProblem(config.config_file, where, "is also in [mcp_servers]; this entry is ignored")
                )
                continue
            try:
                server = MCPServer.from_json(entry, name=name)
            except ValueError as exc:
                problems.append(ConfigProblem(config.config_file, where, f"{exc}; the server is ignored"))
                continue
            for key in MCPServer.unknown_keys(entry):
                problems.append(
                    ConfigProblem(config.config_file, dotted((section, name, key)), "is not a setting of an MCP "
                                  "server and is ignored (docs/mcp.md, “Configuring servers”, lists them)")
                )
            seen.add(name)
            servers.append(server)
    return servers
