"""The command-line reference page, written at build time from the parsers `visindigo` itself reads.

`visindigo.cli.build_parser()` builds every command's parser (each command module adds its own), so walking
it gives every subcommand and option with the help text `--help` prints: a new option or command appears here
at the next build, and one that is gone disappears. Options hidden from `--help` (argparse.SUPPRESS) stay
hidden here too.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

#: The usage lines are wrapped at this width whatever the terminal the build runs in.
USAGE_WIDTH = 100

_INTRO = """\
# Command-line reference

Generated from the command line's own parsers (`visindigo.cli.build_parser`), so it lists exactly what
`visindigo --help` and each `visindigo COMMAND --help` accept. `visindigo --help` also ends with the files in
use on your machine; [Configuration](../configuration.md#where-things-live) explains them.
"""


def commands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    """(command line, parser, one-line help) for the parser and every subcommand below it, depth first."""
    yield parser.prog, parser, parser.description or ""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                for prog, found, text in commands(sub):
                    yield prog, found, text if found is not sub else helps.get(name, text)


def cli_reference(parser: argparse.ArgumentParser) -> str:
    """The whole page: one section per command, with its usage, options and subcommands."""
    parts = [_INTRO]
    for prog, command, summary in commands(parser):
        parts.append(f"## {prog}\n")
        description = command.description or summary
        if description:
            parts.append(f"{_escape(description)}\n")
        parts.append(f"```text\n{usage(command)}```\n")
        rows = list(_option_rows(command))
        if rows:
            parts.append("| argument | what it does |\n|---|---|")
            parts.extend(f"| {names} | {text} |" for names, text in rows)
            parts.append("")
        subcommands = list(_subcommand_rows(command))
        if subcommands:
            parts.append("| command | what it does |\n|---|---|")
            parts.extend(f"| [`{name}`](#{_slug(prog)}-{name}) | {text} |" for name, text in subcommands)
            parts.append("")
        if command.epilog:
            parts.append(f"{_escape(command.epilog)}\n")
    return "\n".join(parts)


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage line `--help` starts with, at a fixed width."""
    formatter = parser.formatter_class(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help()


def visible_options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The arguments `--help` lists, without the subcommand chooser and -h itself."""
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
            continue
        yield action


def _option_rows(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
    for action in visible_options(parser):
        if action.option_strings:
            value = "" if action.nargs == 0 else f" {_metavar(action)}"
            names = ", ".join(f"`{option}{value}`" for option in action.option_strings)
        else:
            names = f"`{action.metavar or action.dest}`"
        text = _escape(action.help or "")
        if action.choices is not None and not isinstance(action.choices, dict):
            text += ("; " if text else "") + "one of " + ", ".join(f"`{choice}`" for choice in action.choices)
        yield names, text


def _metavar(action: argparse.Action) -> str:
    if action.metavar:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    return action.dest.upper()


def _subcommand_rows(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield choice.dest, _escape(choice.help or "")


def _slug(prog: str) -> str:
    return prog.replace(" ", "-")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
