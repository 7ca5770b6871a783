"""The inbox: dialogs written beside a store that another Visindigo holds, taken in by the one that holds it.

One Visindigo writes a store at a time (`lock`). `visindigo ask` beside a running app therefore does not
write the store: it writes its dialog whole (messages, attachments as base64, usage in the messages' meta) as
one file in the `inbox/` folder of the data directory, and the app takes the file in when it next lists its
dialogs (and at every start): the dialog is written into the store, and the file is deleted only after that
write is committed, so a crash in between leaves the file, and taking it in again finds it already there.

- A file is written under a temporary name (`.NAME.….tmp`) and renamed, so a half-written file is never read;
  a temporary file left by a crash is ignored, and removed once it is an hour old.
- Each write is its own file (its name begins with the time in nanoseconds, then the dialog id and the writer's
  process id): two asks at once never overwrite each other, and files are taken in the order they were written.
- A file that cannot be read (not JSON, not an inbox document, a dialog that does not load) is renamed
  `NAME.bad`, kept for the user, and reported in one line; the other files are taken in as usual.
- A continued dialog records what it started from (`base`: the message count, and when it came from the store,
  the store's `updated_at`). Taking it in replaces the stored dialog when that is still what the asker saw and
  the app does not have the dialog open; otherwise it goes in as a branch of the dialog (its id derived from the
  file's name, so taking it in twice makes one branch), and neither side's messages are lost.

Readers beside the app (`ask --continue`, `visindigo list`) see the inbox's dialogs over the store's
(`latest`), the newest file of a dialog winning.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Container
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import write_text_atomic
from ..dialog import Dialog
from ..lookup import DialogSummary
from ..record import record
from ..sanitize import clean_line
from .errors import StoreError

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)

#: The folder of the data directory the inbox files are in.
INBOX_FOLDER = "inbox"
#: The version of an inbox file's document.
VERSION = 1
#: A temporary file older than this (seconds) was left by a writer that crashed before its rename.
STALE_TEMPORARY = 3600.0
#: The namespace of the branch ids (uuid5 of a file's name), so that taking a file in twice makes one branch.
_NAMESPACE = "6f1c2a4e-9b3d-4c8e-a1f0-5d7e2b9c4a10"


class InboxFileError(Exception):
    """An inbox file that cannot be read; the message says why."""


@record(frozen=True)
class Entry:
    """One readable inbox file: the dialog it holds and what the writer started from."""

    path: Path
    dialog: Dialog
    document: dict[str, Any]
    base: dict[str, Any] | None
    written_at: float

    def summary(self) -> DialogSummary:
        dialog = self.dialog
        return DialogSummary(
            id=dialog.id,
            branch_from_id=dialog.branch_from_id,
            title=dialog.title,
            provider_id=dialog.provider_id,
            model_id=dialog.model_id,
            created_at=dialog.created_at,
            updated_at=self.written_at,
            message_count=dialog.message_count,
        )


class Inbox:
    """The inbox folder of one data directory."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / INBOX_FOLDER

    # --- writing (beside the app) -------------------------------------------------------------------------

    def put(self, dialog: Dialog, base: dict[str, Any] | None = None) -> Path:
        """Write the dialog whole as a new inbox file (temporary name, then renamed); raises `OSError`."""
        written_at = time.time()
        document = {"visindigo_inbox": VERSION, "written_at": written_at, "base": base, "dialog": dialog.to_json()}
        path = self.folder / f"{time.time_ns():020d}-{dialog.id}-{os.getpid()}.json"
        write_text_atomic(path, json.dumps(document, ensure_ascii=False), folder_mode=0o700)
        return path

    # --- reading ------------------------------------------------------------------------------------------

    def files(self) -> list[Path]:
        """The inbox files ready to be read, oldest first (temporary and .bad files are not)."""
        try:
            names = os.listdir(self.folder)
        except OSError:  # no inbox (the usual case), or one that cannot be listed: nothing waits
            return []
        return [self.folder / name for name in sorted(names) if name.endswith(".json") and not name.startswith(".")]

    def latest(self) -> dict[str, Entry]:
        """The newest readable file of each dialog waiting here, by dialog id (unreadable files are skipped)."""
        found: dict[str, Entry] = {}
        for path in self.files():
            try:
                entry = read_entry(path)
            except (InboxFileError, FileNotFoundError):
                continue  # taken in meanwhile, or bad: the app that holds the store reports it
            found[entry.dialog.id] = entry
        return found

    # --- taking in (the app that holds the store) ---------------------------------------------------------

    def take_into(self, store: Store, *, loaded: Container[str] = ()) -> tuple[list[str], list[str]]:
        """Move every waiting dialog into `store`; (ids written, one line per file that could not be read).

        `loaded`: the ids of the dialogs the app has in memory — never replaced under it, a branch instead. A
        store that cannot be written (a full disk, a repair under way) leaves the files for the next time.
        """
        written: list[str] = []
        problems: list[str] = []
        self._remove_stale_temporaries()
        for path in self.files():
            try:
                entry = read_entry(path)
            except FileNotFoundError:
                continue
            except InboxFileError as error:
                problem = self._set_aside(path, str(error))
                if problem is not None:
                    problems.append(problem)
                continue
            try:
                dialog_id = _place(store, entry, loaded)
            except (sqlite3.Error, StoreError) as error:
                log.warning("the inbox file %s is left for later: %s", path, error)
                break
            try:
                path.unlink()
            except FileNotFoundError:
                pass
            except OSError as error:  # taking it in again adds nothing (`_place`); said once, not at every look
                if _first_time(path):
                    log.warning("the inbox file %s was taken in but cannot be deleted: %s", path, error)
            if dialog_id:
                written.append(dialog_id)
        return written, problems

    def _set_aside(self, path: Path, why: str) -> str | None:
        """Rename a bad file `NAME.bad`; the line to tell the user (None: told already, it could not be renamed)."""
        aside = path.with_name(path.name + ".bad")
        name, why = clean_line(path.name, 120), clean_line(why, 160)  # a file may be called anything
        try:
            os.replace(path, aside)
        except OSError as error:
            if not _first_time(path):
                return None  # the app looks every few seconds: one line, not one each time
            return (
                f"The inbox file {clean_line(str(path), 200)} cannot be read ({why}) nor set aside: "
                f"{error.strerror or error}."
            )
        return f"The inbox file {name} could not be taken in ({why}); it is kept as {clean_line(str(aside), 200)}."

    def _remove_stale_temporaries(self) -> None:
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        now = time.time()
        for name in names:
            if name.startswith(".") and name.endswith(".tmp"):
                path = self.folder / name
                with contextlib.suppress(OSError):
                    if now - path.stat().st_mtime > STALE_TEMPORARY:
                        path.unlink()


#: Files met that could not be renamed or deleted, so that each is told once while the app runs.
_TOLD: set[Path] = set()


def _first_time(path: Path) -> bool:
    first = path not in _TOLD
    _TOLD.add(path)
    return first


def read_entry(path: Path) -> Entry:
    """The inbox file at `path`; raises `InboxFileError` (or `FileNotFoundError` when it is gone)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as error:
        raise InboxFileError(clean_line(str(error), 120)) from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise InboxFileError(f"not JSON: {clean_line(str(error), 80)}") from None
    if not isinstance(document, dict) or document.get("visindigo_inbox") != VERSION:
        raise InboxFileError("not a Visindigo inbox file of this version")
    dialog_document, base = document.get("dialog"), document.get("base")
    if not isinstance(dialog_document, dict) or not isinstance(dialog_document.get("id"), str):
        raise InboxFileError("it holds no dialog")
    if base is not None and not (isinstance(base, dict) and isinstance(base.get("message_count"), int)):
        raise InboxFileError("its base is not readable")
    written_at = document.get("written_at")
    dialog = Dialog(None)
    try:
        dialog.from_json(dialog_document)
    except Exception as error:  # a message or an attachment that does not load: the file is bad, not the app
        raise InboxFileError(f"its dialog does not load: {clean_line(str(error), 80)}") from None
    if not dialog.id:
        raise InboxFileError("its dialog has no id")
    return Entry(
        path=path,
        dialog=dialog,
        document=dialog_document,
        base=base,
        written_at=float(written_at) if isinstance(written_at, int | float) else path.stat().st_mtime,
    )


def base_of(store: Store | None, dialog: Dialog, inbox: Inbox) -> dict[str, Any]:
    """What a continued dialog starts from, for `Inbox.put`: its message count now, and the store's `updated_at`
    when it came from the store rather than from a file still waiting in the inbox."""
    updated_at: float | None = None
    if store is not None and dialog.id not in inbox.latest():
        summary = store.summary(dialog.id)
        updated_at = summary.updated_at if summary is not None else None
    return {"message_count": dialog.message_count, "updated_at": updated_at}


def _place(store: Store, entry: Entry, loaded: Container[str]) -> str:
    """Write the entry's dialog into the store (in place, or as a branch); "" when it is there already."""
    dialog, base = entry.dialog, entry.base
    stored = store.summary(dialog.id)
    if stored is None:
        store.save_dialog(dialog)
        return dialog.id
    if _holds_all_of(store, dialog.id, dialog):
        return ""  # taken in before, and the file not deleted (a crash after the commit), or one newer taken since
    import uuid  # (with its `platform` import: not on `ask`'s way to its request, which rarely comes here)

    branch_id = str(uuid.uuid5(uuid.UUID(_NAMESPACE), entry.path.name))
    if store.has_dialog(branch_id):
        return ""  # taken in before as a branch
    unchanged = (
        base is not None
        and stored.message_count == base["message_count"]
        and (base.get("updated_at") is None or stored.updated_at == base.get("updated_at"))
    )
    if unchanged and dialog.id not in loaded:
        store.save_dialog(dialog)
        return dialog.id
    branch = Dialog(None)
    branch.from_json({**entry.document, "id": branch_id, "branch_from_id": dialog.id})
    store.save_dialog(branch)
    return branch_id


def _holds_all_of(store: Store, dialog_id: str, dialog: Dialog) -> bool:
    """Whether the stored dialog begins with every message of `dialog`: nothing of the file would be added."""
    document = store.load_document(dialog_id)
    if document is None:
        return False
    stored = Dialog(None)
    stored.from_json(document)
    mine = [m.to_json() for m in dialog.messages]
    return [m.to_json() for m in stored.messages[: len(mine)]] == mine
