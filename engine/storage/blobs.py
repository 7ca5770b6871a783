"""Attached files in the store: each distinct content once, under its SHA-256, referenced from the messages.

A message row holds its attachments' references (`Attachment.reference_json`: name, kind, size, hash — no
bytes) in its `attachments` column; the bytes live once in the `attachments` table, so a screenshot asked about
in a dialog, its three regenerated branches and a compare column is one row. Bytes are written in the same
transaction as the message that first names them, and a content no message names any more is dropped when
messages are deleted (`prune`).

Loading puts the bytes back into the message document as base64 (`Attachment.to_json`'s shape), so a loaded
dialog is `Dialog.from_json` of a document like any other and `Attachment.from_json` checks the kind against
the bytes here too. A reference whose bytes are missing (a damaged file salvaged without them) is left out of
the message rather than failing the dialog.
"""

from __future__ import annotations

import base64
import sqlite3
import time
from collections.abc import Iterable
from typing import Any

from ..attachments.model import Attachment

__all__ = ["copy_blobs", "fill", "keep", "prune"]


def keep(conn: sqlite3.Connection, attachments: Iterable[Attachment]) -> None:
    """Store the bytes of each attachment not stored yet (inside the caller's transaction)."""
    now = time.time()
    conn.executemany(
        "INSERT OR IGNORE INTO attachments (sha256, data, size, created_at) VALUES (?, ?, ?, ?)",
        ((a.sha256, a.data, a.size, now) for a in attachments),
    )


def fill(conn: sqlite3.Connection, documents: list[dict[str, Any]]) -> None:
    """Give every attachment reference in the message documents its bytes (base64); drop one without them."""
    wanted = {ref["sha256"] for doc in documents for ref in doc.get("attachments", ()) if isinstance(ref, dict)}
    if not wanted:
        return
    found: dict[str, str] = {}
    for sha in wanted:
        row = conn.execute("SELECT data FROM attachments WHERE sha256 = ?", (str(sha),)).fetchone()
        if row is not None:
            found[str(sha)] = base64.b64encode(bytes(row[0])).decode("ascii")
    for doc in documents:
        refs = doc.get("attachments")
        if refs:
            doc["attachments"] = [
                {**ref, "data": found[str(ref["sha256"])]}
                for ref in refs
                if isinstance(ref, dict) and str(ref.get("sha256")) in found
            ]


def prune(conn: sqlite3.Connection) -> None:
    """Drop the contents no message refers to any more (after messages were deleted or replaced)."""
    if conn.execute("SELECT 1 FROM attachments LIMIT 1").fetchone() is None:
        return
    conn.execute(
        "DELETE FROM attachments WHERE sha256 NOT IN ("
        "SELECT json_extract(j.value, '$.sha256') FROM messages m, json_each(m.attachments) j "
        "WHERE m.attachments != '' AND json_valid(m.attachments))"
    )


def copy_blobs(source: sqlite3.Connection, target: sqlite3.Connection) -> None:
    """Salvage: the stored contents a damaged file still gives up go into the new one, row by row."""
    try:
        if (
            source.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attachments'").fetchone()
            is None
        ):
            return
        hashes = [str(r[0]) for r in source.execute("SELECT sha256 FROM attachments")]
    except sqlite3.DatabaseError:
        return
    for sha in hashes:
        try:
            row = source.execute("SELECT data, size, created_at FROM attachments WHERE sha256 = ?", (sha,)).fetchone()
            if row is not None:
                target.execute(
                    "INSERT OR IGNORE INTO attachments (sha256, data, size, created_at) VALUES (?, ?, ?, ?)",
                    (sha, *row),
                )
        except sqlite3.DatabaseError:
            continue
