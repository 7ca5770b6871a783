"""`Refused`: what the workbench (and its parts, such as `workbench.context`) will not do now, and why."""

from __future__ import annotations

__all__ = ["Refused"]


class Refused(Exception):
    """The workbench will not do this now; `str(error)` says why, for the user (`severity` as for a notice)."""

    def __init__(self, message: str, severity: str = "warning") -> None:
        super().__init__(message)
        self.severity = severity
