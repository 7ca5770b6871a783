"""The `visindigo` command line.

Parsing lives here and nothing heavy is imported at module level: `--version` and `--help` must answer
without loading Textual, and the app is imported only when it is about to run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from visindigo import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="visindigo",
        description="A full-screen terminal workstation for large language models.",
    )
    parser.add_argument("--version", action="version", version=f"visindigo {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    return 0
