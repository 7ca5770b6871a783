"""The two ways `visindigo ask` refuses: a wrong command line (exit status 2) or a failed question (1)."""

from __future__ import annotations


class UsageError(Exception):
    """The command line is wrong or incomplete: one line on stderr, exit status 2."""


class AskError(Exception):
    """The question could not be asked: one line on stderr, exit status 1."""
