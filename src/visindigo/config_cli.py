"""`visindigo config path | show | edit | example`: the configuration from the shell.

`show` prints the effective settings, each with where it came from (the config file, the environment, the
command line or the built-in default). API keys never appear: a key is described by where it is kept
(credentials.toml, an environment variable) and whether it is set; header values and MCP environment values
are masked the same way. `edit` opens the file in $VISUAL or $EDITOR and checks it when the editor exits,
so a typo is reported at once rather than at the next start of the app.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visindigo.cli_output import fail, say

if TYPE_CHECKING:
    from visindigo.engine.config import Config
    from visindigo.engine.paths import Paths

COMMANDS = ("config",)
MASK = "***"
DEFAULT_EDITOR = "vi"


def add_commands(commands: Any) -> None:
    config = commands.add_parser(
        "config",
        help="show, edit or explain the configuration",
        description="The config file: where it is, what is in effect, an editor with a check, a full example.",
    )
    actions = config.add_subparsers(dest="config_action", metavar="{path,show,edit,example}", required=True)
    path = actions.add_parser("path", help="print the config file's path", description="Print the config file's path.")
    path.add_argument("--all", action="store_true", help="also the credentials, prompt, data and log locations")
    actions.add_parser(
        "show",
        help="the effective settings and where each came from (keys masked)",
        description="Print every setting in effect with its source; API keys and header values are masked.",
    )
    actions.add_parser(
        "edit",
        help="open the config in $VISUAL / $EDITOR, then check it",
        description="Open config.toml in $VISUAL, else $EDITOR, else vi; when the editor exits, report problems. "
        "A missing file starts as the commented example.",
    )
    actions.add_parser(
        "example",
        help="print a commented example config with every setting",
        description="Print a commented config.toml with every setting, generated from the schema.",
    )


def run(args: argparse.Namespace) -> int:
    from visindigo.engine.config import ConfigError
    from visindigo.engine.paths import resolve_paths

    paths = resolve_paths(config_path=getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))
    action = args.config_action
    try:
        if action == "path":
            return _path(paths, args, all_paths=args.all)
        if action == "show":
            return _show(paths, args)
        if action == "edit":
            return _edit(paths)
        from visindigo.engine.config.example import example_config

        print(example_config(), end="")
        return 0
    except (ConfigError, OSError) as error:
        return fail(str(error))


def path_sources(paths: Paths, args: argparse.Namespace) -> tuple[str, str]:
    """Where the config file and the data folder were chosen: the command line, VISINDIGO_HOME, the platform."""
    from visindigo.engine.paths import HOME_ENV

    home = f"${HOME_ENV}" if os.environ.get(HOME_ENV) else "platform default"
    config = "--config" if getattr(args, "config", None) else home
    data = "--data-dir" if getattr(args, "data_dir", None) else home
    return config, data


def _path(paths: Paths, args: argparse.Namespace, *, all_paths: bool) -> int:
    if not all_paths:
        say(str(paths.config_file))
        return 0
    for name, where in location_rows(paths):
        say(f"{name:<12} {where}")
    return 0


def location_rows(paths: Paths) -> list[tuple[str, Path]]:
    return [
        ("config", paths.config_file),
        ("credentials", paths.credentials_file),
        ("prompts", paths.prompt_dir),
        ("themes", paths.config_dir / "themes"),
        ("data", paths.data_dir),
        ("dialogs", paths.db_file),
        ("logs", paths.logs_dir),
    ]


# --- show ---------------------------------------------------------------------------------------------------


def _show(paths: Paths, args: argparse.Namespace) -> int:
    from visindigo.engine.config import load_config

    config, problems = load_config(paths)
    secrets = {secret for provider in config.providers() for secret in provider.secrets()}
    for line in effective_lines(config, paths, args):
        for secret in secrets:  # the last guard: a key in an unexpected field is masked all the same
            line = line.replace(secret, MASK)
        say(line)
    if problems:
        say()
        say(f"# {len(problems)} problem(s):")
        for problem in problems:
            say(f"#   {problem}")
    return 0


def effective_lines(config: Config, paths: Paths, args: argparse.Namespace) -> list[str]:
    """The effective settings as TOML-like lines, each with its source in a trailing comment."""
    from visindigo.engine.config.model import DEFAULT_THEME
    from visindigo.engine.run_loop import DEFAULT_MAX_TOOL_ROUNDS
    from visindigo.engine.templates.system import UNKNOWN_LOCATION, UserContext

    data = config.data
    file_name = paths.config_file.name
    config_source, data_source = path_sources(paths, args)
    rows: list[tuple[str, Any, str]] = [
        ("config_file", str(paths.config_file), config_source + ("" if paths.config_file.exists() else ", missing")),
        ("data_dir", str(paths.data_dir), data_source),
        ("logs_dir", str(paths.logs_dir), "in the data folder"),
    ]

    def setting(key: str, value: Any, default: Any, *, env: str = "") -> None:
        if env and os.environ.get(env):
            rows.append((key, os.environ[env], f"${env}"))
        elif value is not None:
            rows.append((key, value, file_name))
        else:
            rows.append((key, default, "default"))

    providers = config.provider_ids
    setting("default_provider", data.get("default_provider"), providers[0] if providers else "(none)")
    setting("default_model", data.get("default_model"), "(the provider's default_model)")
    setting("theme", data.get("theme"), DEFAULT_THEME)
    setting("prompt_dir", data.get("prompt_dir"), str(config.prompt_dir))
    setting("run.max_tool_rounds", data.get("run", {}).get("max_tool_rounds"), DEFAULT_MAX_TOOL_ROUNDS)
    setting("ui.stream_fps", data.get("ui", {}).get("stream_fps"), 4, env="VISINDIGO_STREAM_FPS")
    setting("ui.cursor_blink", data.get("ui", {}).get("cursor_blink"), False)
    user_settings = data.get("user", {})
    from_env = UserContext.from_environment({})
    for key, fallback in (("name", from_env.name), ("language", from_env.language)):
        if key in user_settings:
            rows.append((f"user.{key}", user_settings[key], file_name))
        else:
            rows.append((f"user.{key}", fallback, "environment" if fallback else "default"))
    setting("user.location", user_settings.get("location"), UNKNOWN_LOCATION)
    for action, keys in config.keys.items():
        rows.append((f"keys.{action}", keys, file_name))
    for provider in config.providers():
        prefix = f"providers.{provider.id}"
        rows.append((f"{prefix}.kind", provider.kind, file_name))
        if provider.base_url:
            rows.append((f"{prefix}.base_url", _mask_url(provider.base_url), file_name))
        rows.append((f"{prefix}.api_key", *_key_state(config, provider.id, provider.api_key_env, file_name)))
        for name in provider.headers:
            rows.append((f"{prefix}.headers.{name}", MASK, file_name))
        if provider.models:
            rows.append((f"{prefix}.models", [m.id for m in provider.models], file_name))
    for server in config.mcp_servers:
        prefix = f"mcp_servers.{server.name}"
        target = _mask_url(server.url) if server.url else " ".join([server.command, *mask_args(server.args)])
        rows.append((f"{prefix}", target, file_name))
        for name in server.env:
            rows.append((f"{prefix}.env.{name}", MASK, file_name))
        for name in server.headers:
            rows.append((f"{prefix}.headers.{name}", MASK, file_name))
    for skill in config.skills:
        rows.append((f"skills.{skill.name}", f"{len(skill.content)} characters", file_name))
    width = max(len(key) + len(_toml(value)) for key, value, _ in rows) + 5
    return [f"{f'{key} = {_toml(value)}':<{width}}# {source}" for key, value, source in rows]


def _key_state(config: Config, provider_id: str, env: str, file_name: str) -> tuple[str, str]:
    """What the user learns about a key: where it is and whether it is set — never any of its characters."""
    if provider_id in config.credentials:
        return "(set)", "credentials.toml"
    entry = config.data.get("providers", {}).get(provider_id, {})
    if entry.get("api_key"):
        return "(set)", f"{file_name} — move it to credentials.toml or an environment variable"
    if env:
        return ("(set)" if os.environ.get(env) else "(not set)"), f"${env}"
    return "(none)", "default"


_SECRET_WORDS = ("key", "token", "secret", "password", "auth", "bearer")


def mask_args(args: tuple[str, ...] | list[str]) -> list[str]:
    """Command arguments with credentials masked: `--api-key X`, `--token=X`, `Bearer X`."""
    masked: list[str] = []
    hide_next = False
    for arg in args:
        lowered = arg.lower()
        if hide_next:
            masked.append(MASK)
            hide_next = False
        elif "=" in arg and any(word in lowered.split("=", 1)[0] for word in _SECRET_WORDS):
            masked.append(arg.split("=", 1)[0] + "=" + MASK)
        else:
            masked.append(arg)
            hide_next = (arg.startswith("-") and any(word in lowered for word in _SECRET_WORDS)) or lowered == "bearer"
    return masked


def _mask_url(text: str) -> str:
    from visindigo.engine.applog import safe_url

    return safe_url(text) if "://" in text else text


def _toml(value: Any) -> str:
    import tomlkit

    if isinstance(value, str) and value.startswith("(") and value.endswith(")"):
        return value
    if value == MASK:
        return MASK
    return str(tomlkit.item(value).as_string())


# --- edit ---------------------------------------------------------------------------------------------------


def editor_command(environ: dict[str, str] | os._Environ[str] | None = None) -> list[str]:
    """$VISUAL, else $EDITOR, else vi; split like a shell would (`code --wait` works)."""
    import shlex

    environ = os.environ if environ is None else environ
    chosen = environ.get("VISUAL") or environ.get("EDITOR") or DEFAULT_EDITOR
    return shlex.split(chosen)


def _edit(paths: Paths) -> int:
    import subprocess

    from visindigo.engine.atomic import write_text_atomic
    from visindigo.engine.config import load_config
    from visindigo.engine.config.example import example_config

    file = paths.config_file
    if not file.exists():
        write_text_atomic(file, example_config(), mode=0o644, folder_mode=0o700)
        say(f"{file} did not exist; it starts as the commented example.")
    command = [*editor_command(), str(file)]
    try:
        status = subprocess.call(command)
    except OSError as error:
        return fail(f"cannot start the editor {command[0]!r} ({error.strerror or error}); set $VISUAL or $EDITOR")
    if status != 0:
        say(f"the editor exited with status {status}; checking the file anyway")
    _, problems = load_config(paths)
    if not problems:
        say(f"{file}: no problems.")
        return 0
    say(f"{file}: {len(problems)} problem(s) — the app starts with everything else:")
    for problem in problems:
        say(f"  {problem}")
    return 1
