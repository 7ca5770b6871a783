"""The inbox: dialogs written beside a store another instance holds, taken in by the holder when it lists.

The holder is a real `Center.open` on a real SQLite file (holding the data directory's lock); the writer is a
`Center.open(read_only=True)` beside it, as `visindigo ask` is beside a running app.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.engine import Center, Message, Role
from visindigo.engine.attachments.model import Attachment, AttachmentKind
from visindigo.engine.storage import StoreLocked
from visindigo.engine.storage.inbox import STALE_TEMPORARY, Inbox, base_of

ROOT = Path(__file__).resolve().parents[3]
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a4c80000000049454e44ae426082"
)


@pytest.fixture
def errors() -> list[str]:
    """What the app was told about the inbox while it ran (the store's `on_error`, a notice in the app)."""
    return []


@pytest.fixture
def app(tmp_path: Path, errors: list[str]) -> Iterator[Center]:
    """The running app: holds the store of `tmp_path` (and its lock) until the test ends."""
    center = Center.open(tmp_path)
    assert center.store is not None
    center.store.on_error = errors.append
    yield center
    center.close()


def beside(home: Path) -> Center:
    """`visindigo ask`'s view of the store while the app holds it."""
    with pytest.raises(StoreLocked):
        Center.open(home)
    return Center.open(home, read_only=True)


def inbox(home: Path) -> Inbox:
    return Inbox(home / "data")


def asked(center: Center, question: str, answer: str, *, continuing: str = "") -> tuple[str, dict[str, object] | None]:
    """A question and its answer as `ask` leaves them: written to the inbox, with what it started from."""
    dialog = center.get_dialog(continuing) if continuing else center.create_dialog()
    assert dialog is not None and center.paths is not None
    waiting = Inbox(center.paths.data_dir)
    base = base_of(center.store, dialog, waiting) if continuing else None
    dialog.append_message(Role.USER, question)
    dialog.append_message(Message(Role.ASSISTANT, answer, meta={"usage": {"input_tokens": 7, "output_tokens": 3}}))
    waiting.put(dialog, base)
    return dialog.id, base


def contents(center: Center, dialog_id: str) -> list[str]:
    dialog = center.get_dialog(dialog_id)
    assert dialog is not None
    return [m.content for m in dialog.messages]


def test_a_dialog_with_its_attachment_and_usage_goes_into_the_store_when_the_app_lists(
    app: Center, tmp_path: Path, errors: list[str]
) -> None:
    reader = beside(tmp_path)
    dialog = reader.create_dialog()
    dialog.title = "from the shell"
    shot = Attachment("shot.png", AttachmentKind.IMAGE, "image/png", PNG)
    dialog.append_message(Message(Role.USER, "what is this?", attachments=[shot]))
    dialog.append_message(Message(Role.ASSISTANT, "a pixel", meta={"usage": {"input_tokens": 7, "output_tokens": 3}}))
    written = inbox(tmp_path).put(dialog)
    reader.close()
    assert written.parent == tmp_path / "data" / "inbox" and written.suffix == ".json"
    assert app.store is not None and dialog.id not in {s.id for s in app.store.summaries()}

    listed = {s.id: s for s in app.dialog_summaries()}
    assert listed[dialog.id].title == "from the shell" and listed[dialog.id].message_count == 2
    assert not written.exists() and errors == []
    taken = app.get_dialog(dialog.id)
    assert taken is not None
    assert taken.messages[0].attachments[0].data == PNG and taken.messages[0].attachments[0].name == "shot.png"
    assert taken.messages[1].meta["usage"] == {"input_tokens": 7, "output_tokens": 3}
    taken.append_message(Role.USER, "continued in the app")  # and it is the app's own dialog now
    app.close()
    again = Center.open(tmp_path)
    try:
        assert contents(again, dialog.id) == ["what is this?", "a pixel", "continued in the app"]
    finally:
        again.close()


def test_the_reader_beside_the_app_sees_what_waits_in_the_inbox_and_continues_it(app: Center, tmp_path: Path) -> None:
    first = beside(tmp_path)
    dialog_id, _ = asked(first, "one", "1")
    first.close()
    second = beside(tmp_path)
    try:
        newest = max(second.dialog_summaries(), key=lambda s: s.updated_at)
        assert newest.id == dialog_id and newest.message_count == 2
        assert second.has_dialog(dialog_id)
        asked(second, "two", "2", continuing=dialog_id)
    finally:
        second.close()
    assert len(inbox(tmp_path).files()) == 2
    app.dialog_summaries()
    assert contents(app, dialog_id) == ["one", "1", "two", "2"]  # the newer file replaced the older one in place
    assert [s.id for s in app.dialog_summaries()] == [dialog_id] and inbox(tmp_path).files() == []


def test_continuing_a_stored_dialog_replaces_it_when_unchanged_and_branches_when_the_app_changed_it(
    app: Center, tmp_path: Path
) -> None:
    quiet = app.create_dialog()
    quiet.append_message(Role.USER, "quiet")
    busy = app.create_dialog()
    busy.append_message(Role.USER, "busy")
    opened = app.create_dialog()
    opened.append_message(Role.USER, "open")
    quiet_id, busy_id, opened_id = quiet.id, busy.id, opened.id
    app.close()  # reopened: nothing is in memory, as in an app that has not opened these dialogs
    app2 = Center.open(tmp_path)
    try:
        assert app2.get_dialog(opened_id) is not None  # the app has this one open
        reader = beside(tmp_path)
        for dialog_id in (quiet_id, busy_id, opened_id):
            asked(reader, "from the shell", "answer", continuing=dialog_id)
        reader.close()
        changed = app2.get_dialog(busy_id)
        assert changed is not None
        changed.append_message(Role.ASSISTANT, "the app answered meanwhile")
        app2._dialogs.pop(busy_id)  # closed again in the app: only the store's row says it changed
        app2.dialog_summaries()

        assert contents(app2, quiet_id) == ["quiet", "from the shell", "answer"]
        assert contents(app2, busy_id) == ["busy", "the app answered meanwhile"]
        assert contents(app2, opened_id) == ["open"]
        branches = {s.branch_from_id: s.id for s in app2.dialog_summaries() if s.branch_from_id}
        assert set(branches) == {busy_id, opened_id}
        assert contents(app2, branches[busy_id]) == ["busy", "from the shell", "answer"]
        assert contents(app2, branches[opened_id]) == ["open", "from the shell", "answer"]
    finally:
        app2.close()


@pytest.mark.parametrize("continuing", [False, True])
def test_a_crash_after_the_commit_before_the_file_is_deleted_takes_nothing_in_twice(
    app: Center, tmp_path: Path, continuing: bool
) -> None:
    existing = app.create_dialog()
    existing.append_message(Role.USER, "stored")
    reader = beside(tmp_path)
    asked(reader, "q", "a", continuing=existing.id if continuing else "")
    reader.close()
    (waiting,) = inbox(tmp_path).files()
    kept = tmp_path / "kept.json"
    shutil.copy(waiting, kept)
    before = len(app.dialog_summaries())
    os.replace(kept, waiting)  # the file is back, as if the process died between the commit and the unlink
    assert len(app.dialog_summaries()) == before and inbox(tmp_path).files() == []


def test_a_corrupt_file_is_set_aside_in_one_line_and_the_others_are_taken_in(
    app: Center, tmp_path: Path, errors: list[str]
) -> None:
    reader = beside(tmp_path)
    good_id, _ = asked(reader, "good", "kept")
    reader.close()
    folder = tmp_path / "data" / "inbox"
    bad = folder / "00000000000000000001-broken-1.json"
    bad.write_text('{"visindigo_inbox": 1, "dialog": {"id": "x", "mess', encoding="utf-8")
    alien = folder / "00000000000000000002-alien-1.json"
    alien.write_text('{"something": "else"}', encoding="utf-8")

    assert good_id in {s.id for s in app.dialog_summaries()}
    assert contents(app, good_id) == ["good", "kept"]
    assert len(errors) == 2 and all("\n" not in e and ".bad" in e for e in errors)
    assert "not JSON" in errors[0] and "not a Visindigo inbox file" in errors[1]
    assert sorted(p.name for p in folder.iterdir()) == [bad.name + ".bad", alien.name + ".bad"]
    assert bad.with_name(bad.name + ".bad").read_text(encoding="utf-8").startswith('{"visindigo_inbox"')
    app.dialog_summaries()
    assert len(errors) == 2  # said once: the file is aside now


def test_a_corrupt_file_found_at_start_is_a_notice(tmp_path: Path) -> None:
    Center.open(tmp_path).close()
    folder = tmp_path / "data" / "inbox"
    folder.mkdir()
    (folder / "1-x-1.json").write_bytes(b"\xff\xfe not text")
    center = Center.open(tmp_path)
    try:
        assert [n for n in center.notices if "inbox" in n] == [
            f"The inbox file 1-x-1.json could not be taken in ('utf-8' codec can't decode byte 0xff in position 0: "
            f"invalid start byte); it is kept as {folder / '1-x-1.json.bad'}."
        ]
    finally:
        center.close()


CRASHING_WRITER = """
import os, sys
from visindigo.engine import Center, Role
from visindigo.engine.storage.inbox import Inbox

center = Center.open(sys.argv[1], read_only=True)
dialog = center.create_dialog()
dialog.append_message(Role.USER, "never renamed")
os.replace = lambda *args: os._exit(9)  # the process dies between writing the file and renaming it
Inbox(center.paths.data_dir).put(dialog)
"""


def test_a_crash_between_write_and_rename_leaves_a_temporary_file_that_is_never_read(
    app: Center, tmp_path: Path, errors: list[str]
) -> None:
    done = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(tmp_path)], cwd=ROOT, timeout=60)
    assert done.returncode == 9
    folder = tmp_path / "data" / "inbox"
    (left,) = list(folder.iterdir())
    assert left.name.startswith(".") and left.name.endswith(".tmp") and "never renamed" in left.read_text()
    before = app.dialog_summaries()
    assert [s.title for s in before] == [] and errors == [] and left.exists()
    beside(tmp_path).close()
    old = time.time() - STALE_TEMPORARY - 60
    os.utime(left, (old, old))
    app.dialog_summaries()
    assert not left.exists() and errors == []


def test_without_an_inbox_listing_costs_one_failed_listdir(app: Center, tmp_path: Path) -> None:
    assert not (tmp_path / "data" / "inbox").exists()
    assert app.dialog_summaries() == [] and app.take_inbox() == []
    assert not (tmp_path / "data" / "inbox").exists()  # nothing is created by looking


def test_a_bad_file_that_cannot_be_set_aside_is_told_once_not_at_every_look(
    app: Center, tmp_path: Path, errors: list[str]
) -> None:
    folder = tmp_path / "data" / "inbox"
    folder.mkdir()
    bad = folder / "1-stuck-1.json"
    bad.write_text("not json", encoding="utf-8")
    (folder / "1-stuck-1.json.bad").mkdir()  # the name to set it aside under is taken: the rename fails
    for _ in range(3):
        app.dialog_summaries()
        app.take_inbox()
    assert len(errors) == 1 and "nor set aside" in errors[0] and "\n" not in errors[0]
    assert bad.exists()


def test_a_file_name_a_terminal_would_obey_is_told_inert(app: Center, tmp_path: Path, errors: list[str]) -> None:
    folder = tmp_path / "data" / "inbox"
    folder.mkdir()
    (folder / "2-\x1b]0;owned\x07\x1b[31m-1.json").write_text("{", encoding="utf-8")
    app.dialog_summaries()
    assert len(errors) == 1 and not any(ch in errors[0] for ch in "\x1b\x07")
