"""Shell completion for bash, zsh and fish, from argcomplete (the maintained completer for argparse).

`visindigo completion SHELL` prints the script to install (see docs/configuration.md). The script calls `visindigo`
itself with `_ARGCOMPLETE` set when the user presses tab; `complete_if_asked` answers that call from the same
parser that parses real command lines, so completions can never disagree with the commands. argcomplete is
imported only then: a normal start does not pay for it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

SHELLS = ("bash", "zsh", "fish")
COMMANDS = ("completion",)


def add_commands(commands: Any) -> None:
    completion = commands.add_parser(
        "completion",
        help="print the shell completion script for bash, zsh or fish",
        description="Print the completion script for SHELL. bash: add `eval \"$(visindigo completion bash)\"` to "
        "~/.bashrc; zsh: the same line in ~/.zshrc (after compinit); fish: `visindigo completion fish > "
        "~/.config/fish/completions/visindigo.fish`.",
    )
    completion.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def script(shell: str) -> str:
    import argcomplete

    return argcomplete.shellcode(["visindigo"], shell=shell)


def run(args: argparse.Namespace) -> int:
    print(script(args.shell), end="")
    return 0


def complete_if_asked(parser: argparse.ArgumentParser) -> None:
    """When the shell asks for completions, print them and exit; otherwise return at once."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    argcomplete.autocomplete(parser)
