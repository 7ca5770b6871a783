"""`visindigo tools`: the tools that installed packages offer (entry-point group `visindigo.tools`)."""

from __future__ import annotations

import argparse
from typing import Any

from visindigo.cli_output import say

COMMANDS = ("tools",)


def add_commands(commands: Any) -> None:
    commands.add_parser(
        "tools",
        help="list the tools installed packages offer, and which are enabled",
        description="List the tools from installed packages (entry-point group visindigo.tools) with their "
        "package; enable them in the app (ctrl+p, \"Tools\") or with [tools] enabled = [...] in the config.",
    )


def run(args: argparse.Namespace) -> int:
    from visindigo.engine.config import load_config
    from visindigo.engine.paths import resolve_paths
    from visindigo.engine.plugins import discover_tools

    paths = resolve_paths(config_path=getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))
    config, _ = load_config(paths)
    enabled = set(config.enabled_tools)
    found = discover_tools()
    if not found.tools and not found.problems:
        say("No installed package offers tools (entry-point group visindigo.tools).")
    for tool in found.tools:
        mark = "on " if tool.key in enabled else "off"
        say(f"{mark} {tool.key:<24} {tool.package} {tool.version}  ({tool.target})")
    for problem in found.problems:
        say(f"!!  {problem}")
    return 0
