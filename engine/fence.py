"""A Markdown code block that its own content cannot close: the one rule the export and attachments share."""

from __future__ import annotations

import re

__all__ = ["fenced"]

_BACKTICKS = re.compile("`+")


def fenced(text: str, language: str = "") -> list[str]:
    """The lines of a code block whose fence is longer than any run of backticks inside, so it cannot be closed
    early (a file or tool result that holds ``` of its own stays one block)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, text.rstrip("\n"), fence]
