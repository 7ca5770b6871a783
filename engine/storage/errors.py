"""Errors the store raises; each message can be shown to the user as it is."""

from __future__ import annotations


class StoreError(Exception):
    """The dialog store cannot be used; the message says why and what to do."""


class StoreLocked(StoreError):
    """Another running Visindigo holds the data directory; two writers would overwrite each other's work.

    `directory` is the data directory and `holder` the process id written in the lock file ("" if unknown),
    for callers that word the refusal for their own situation.
    """

    def __init__(self, message: str, *, directory: str = "", holder: str = "") -> None:
        super().__init__(message)
        self.directory = directory
        self.holder = holder


class StoreRepairing(StoreError):
    """The store turned out damaged and is being repaired in the background; what was asked cannot be answered
    until the repair is done (open dialogs are kept in memory and saved from there)."""

    def __init__(self, path: object) -> None:
        super().__init__(
            f"The dialog store {path} is damaged and is being repaired; try again once the repair is done."
        )
