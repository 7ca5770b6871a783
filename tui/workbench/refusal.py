"""`Refused`: what the workbench (and its parts, such as `workbench.context`) will not do now, and why."""

from __future__ import annotations

from typing import Literal

__all__ = ["Refused", "Severity"]

#: How a refusal is shown: the severities of a Textual notice (named here: the workbench imports no Textual).
Severity = Literal["information", "warning", "error"]


class Refused(Exception):
    """The workbench will not do this now; `str(error)` says why, for the user (`severity` as for a notice)."""

    def __init__(self, message: str, severity: Severity = "warning") -> None:
        super().__init__(message)
        self.severity = severity
