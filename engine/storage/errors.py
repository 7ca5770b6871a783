"""Errors the store raises; each message can be shown to the user as it is."""

from __future__ import annotations


class StoreError(Exception):
    """The dialog store cannot be used; the message says why and what to do."""


class StoreLocked(StoreError):
    """Another running Visindigo holds the data directory; two writers would overwrite each other's work."""
