"""`visindigo doctor`: one report with what a support thread would ask for, safe to paste.

It checks versions, the files and their permissions, the config's problems, each provider (reached with a
short timeout and asked for its model list — never a request that costs tokens), each MCP server (started
and asked for its tools) and the terminal. Keys never appear: a key is reported as set or not set, header
values and URL query values as `***`, and every key the config knows is masked in whatever a server or an
error message says. The exit status is 1 when a check found a problem, so scripts can use it too.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visindigo import __version__
from visindigo.cli_output import fail, say

if TYPE_CHECKING:
    from visindigo.engine.config import Config
    from visindigo.engine.mcp_server import MCPServer
    from visindigo.engine.paths import Paths
    from visindigo.engine.provider import Provider

COMMANDS = ("doctor",)
OK, PROBLEM, NOTE = "ok", "!!", "--"
#: Seconds a provider has to answer the model list, and an MCP server to start and list its tools.
PROVIDER_TIMEOUT = 5.0
MCP_TIMEOUT = 20.0
_SHOWN_MODELS = 8


class Report:
    """The report's sections of (mark, line), and the secrets to mask in its text."""

    def __init__(self) -> None:
        self.sections: list[tuple[str, list[tuple[str, str]]]] = []
        self.secrets: set[str] = set()

    def section(self, title: str) -> list[tuple[str, str]]:
        lines: list[tuple[str, str]] = []
        self.sections.append((title, lines))
        return lines

    @property
    def problems(self) -> int:
        return sum(1 for _, lines in self.sections for mark, _ in lines if mark == PROBLEM)

    def text(self) -> str:
        out = ["Visindigo doctor — safe to paste: keys, header values and URL query values are masked.", ""]
        for title, lines in self.sections:
            out.append(title)
            out.extend(f"  {mark} {line}" for mark, line in lines)
            out.append("")
        count = self.problems
        out.append(f"{count} problem(s) found." if count else "No problems found.")
        text = "\n".join(out)
        for secret in sorted(self.secrets, key=len, reverse=True):
            text = text.replace(secret, "***")
        return text


def add_commands(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor",
        help="check the set-up: versions, files, config, providers, MCP servers, terminal",
        description="Check what a support request would ask about and print a report that is safe to paste "
        "(keys masked). Providers are asked for their model list only; nothing costs tokens.",
    )
    doctor.add_argument("--config", metavar="FILE", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    doctor.add_argument("--data-dir", metavar="DIR", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    doctor.add_argument("--offline", action="store_true", help="skip providers and MCP servers")


def run(args: argparse.Namespace) -> int:
    from visindigo.engine.paths import resolve_paths

    paths = resolve_paths(config_path=getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))
    try:
        report = build_report(paths, offline=args.offline)
    except Exception as error:  # the doctor must not die of what it examines
        return fail(f"doctor stopped: {type(error).__name__}: {error}")
    say(report.text())
    return 1 if report.problems else 0


def build_report(paths: Paths, *, offline: bool = False, ask_terminal: bool = True) -> Report:
    from visindigo.engine.config import load_config

    report = Report()
    _versions(report.section("versions"))
    _paths(report.section("files"), paths)
    config, problems = load_config(paths)
    providers = config.providers()
    for provider in providers:
        report.secrets.update(provider.secrets())
    for server in config.mcp_servers:
        report.secrets.update(v for v in server.env.values() if len(v) >= 4)
        report.secrets.update(v for v in server.headers.values() if len(v) >= 4)
    config_lines = report.section("config")
    for problem in problems:
        config_lines.append((PROBLEM, str(problem)))
    if not problems:
        exists = paths.config_file.exists()
        config_lines.append((OK, "no problems" if exists else "no config file yet (the app offers setup)"))
    provider_lines = report.section("providers")
    mcp_lines = report.section("MCP servers")
    if offline:
        provider_lines.append((NOTE, "not checked (--offline)"))
        mcp_lines.append((NOTE, "not checked (--offline)"))
    else:
        import asyncio  # here, not at the top: the command line imports this module on every start

        asyncio.run(_online(provider_lines, mcp_lines, providers, config, paths))
    ui = config.data.get("ui")
    _terminal(report.section("terminal"), ask_terminal, ui.get("images", "auto") if isinstance(ui, dict) else "auto")
    return report


# --- versions and files -------------------------------------------------------------------------------------


def _version(package: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _versions(lines: list[tuple[str, str]]) -> None:
    import platform

    from visindigo.install_advice import install_method

    lines.append((NOTE, f"visindigo {__version__} (installed with {install_method()}, in {sys.prefix})"))
    lines.append((NOTE, f"Python {platform.python_version()} ({sys.executable}) on {platform.platform()}"))
    packages = ("textual", "httpx", "jsonschema", "tomlkit", "platformdirs", "mcp", "textual-serve")
    lines.append((NOTE, ", ".join(f"{name} {_version(name)}" for name in packages)))


def _mode(path: Path) -> str:
    try:
        return f"{stat.S_IMODE(path.stat().st_mode):04o}"
    except OSError:
        return "?"


def _paths(lines: list[tuple[str, str]], paths: Paths) -> None:
    from visindigo.engine.config.files import is_private
    from visindigo.engine.paths import HOME_ENV

    home = os.environ.get(HOME_ENV)
    lines.append((NOTE, f"{HOME_ENV}={home}" if home else f"{HOME_ENV} not set: the platform's folders"))
    for name, path, private in (
        ("config", paths.config_file, False),
        ("credentials", paths.credentials_file, True),
    ):
        if not path.exists():
            lines.append((NOTE, f"{name} {path}: not there (optional)"))
        elif not os.access(path, os.R_OK):
            lines.append((PROBLEM, f"{name} {path}: cannot be read (mode {_mode(path)})"))
        elif private and not is_private(path):
            lines.append((PROBLEM, f"{name} {path}: others can read it (mode {_mode(path)}); run: chmod 600 {path}"))
        else:
            lines.append((OK, f"{name} {path} (mode {_mode(path)})"))
    for name, folder in (("data", paths.data_dir), ("logs", paths.logs_dir)):
        lines.append(_folder_line(name, folder))
    if paths.db_file.exists():
        size = paths.db_file.stat().st_size
        lines.append((OK, f"dialogs {paths.db_file} ({size / 1e6:.1f} MB)"))
    else:
        lines.append((NOTE, f"dialogs {paths.db_file}: not made yet"))


def _folder_line(name: str, folder: Path) -> tuple[str, str]:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return PROBLEM, f"{name} {folder}: {existing} is a file, so the folder cannot be made"
    if not os.access(existing, os.W_OK | os.X_OK):
        return PROBLEM, f"{name} {folder}: {existing} is not writable (mode {_mode(existing)})"
    if existing != folder:
        return NOTE, f"{name} {folder}: not made yet (can be)"
    return OK, f"{name} {folder} (writable, mode {_mode(folder)})"


# --- providers and MCP servers ------------------------------------------------------------------------------


async def _online(
    provider_lines: list[tuple[str, str]],
    mcp_lines: list[tuple[str, str]],
    providers: list[Provider],
    config: Config,
    paths: Paths,
) -> None:
    if not providers:
        provider_lines.append((NOTE, "none configured"))
    import asyncio

    results = await asyncio.gather(*(_check_provider(p, config) for p in providers))
    for lines in results:
        provider_lines.extend(lines)
    servers = list(config.mcp_servers)
    if not servers:
        mcp_lines.append((NOTE, "none configured"))
        return
    mcp_lines.extend(await _check_mcp(servers, paths))


async def _check_provider(provider: Provider, config: Config) -> list[tuple[str, str]]:
    from visindigo.engine.applog import safe_url
    from visindigo.engine.providers.base import ProviderError
    from visindigo.engine.providers.models import list_models

    label = f"{provider.id} ({provider.kind}{', ' + safe_url(provider.base_url) if provider.base_url else ''})"
    lines: list[tuple[str, str]] = []
    if provider.id in config.credentials:
        key = "key set in credentials.toml"
    elif provider.api_key_env:
        key = f"key from ${provider.api_key_env}: " + ("set" if os.environ.get(provider.api_key_env) else "NOT SET")
    else:
        key = "no key"
    provider.connect_timeout = provider.read_timeout = PROVIDER_TIMEOUT
    started = time.monotonic()
    try:
        models = await list_models(provider)
    except ProviderError as error:
        lines.append((PROBLEM, f"{label}: {error} [{key}]"))
        return lines
    except Exception as error:  # an adapter bug is a finding, not a crash of the doctor
        lines.append((PROBLEM, f"{label}: {type(error).__name__}: {error} [{key}]"))
        return lines
    finally:
        await provider.aclose()
    took = (time.monotonic() - started) * 1000
    ids = [m.id for m in models]
    shown = ", ".join(ids[:_SHOWN_MODELS]) + (f", … ({len(ids)} in all)" if len(ids) > _SHOWN_MODELS else "")
    lines.append((OK, f"{label}: answered in {took:.0f} ms, {len(ids)} model(s): {shown or 'none listed'} [{key}]"))
    return lines


async def _check_mcp(servers: list[MCPServer], paths: Paths) -> list[tuple[str, str]]:
    try:
        from visindigo.engine.mcp import MCPManager
        from visindigo.engine.mcp.status import ServerState
    except ImportError:
        from visindigo.install_advice import extra_command

        return [(PROBLEM, f"MCP support is not installed: {extra_command('mcp', ['mcp'])}")]
    lines: list[tuple[str, str]] = []
    manager = MCPManager(paths.logs_dir if paths.data_dir.exists() else None, startup_timeout=MCP_TIMEOUT)
    try:
        for server in servers:
            if not server.enabled:
                lines.append((NOTE, f"{server.name}: disabled"))
                continue
            started = time.monotonic()
            (status,) = await manager.start([server])
            took = time.monotonic() - started
            if status.state != ServerState.RUNNING:
                lines.append((PROBLEM, f"{server.name} ({status.transport or server.kind}): {status.error}"))
                continue
            names = [f.name for f in await manager.functions_for([server])]
            version = f", {status.server_version}" if status.server_version else ""
            lines.append(
                (
                    OK,
                    f"{server.name} ({status.transport}{version}): started in {took:.1f} s, "
                    f"{len(names)} tool(s): {', '.join(names) or 'none'}",
                )
            )
    finally:
        await manager.aclose()
    return lines


# --- terminal -----------------------------------------------------------------------------------------------


def _terminal(lines: list[tuple[str, str]], ask_terminal: bool, images: object = "auto") -> None:
    from visindigo.doctor_terminal import terminal_facts
    from visindigo.tui.platform.graphics import choose

    facts = terminal_facts(ask_terminal=ask_terminal)
    lines.append((NOTE, f"TERM={facts.term}; colours: {facts.colours}; size {facts.size}"))
    lines.append((NOTE, f"synchronized output (mode 2026): {facts.synchronized_output}"))
    multiplexer = facts.multiplexer if facts.multiplexer != "none" else "no tmux/screen"
    where = [multiplexer, "SSH" if facts.over_ssh else "local"]
    lines.append((NOTE, " · ".join(where)))
    for note in facts.copy_notes:
        lines.append((NOTE, note))
    lines.append((NOTE, choose(images).describe()))
