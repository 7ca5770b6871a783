"""Attached files in the store: kept once by their hash, referenced from the messages, back whole on reopen."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from visindigo.engine import Center, Message, Role
from visindigo.engine.attachments import read_attachment
from visindigo.engine.storage.schema import migrate

from ..attachments.files import png
from .conftest import raw_rows, reopen


def test_a_file_asked_about_twice_is_one_row_and_comes_back_whole(center: Center, home: Path, tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png(40, 30))
    (tmp_path / "notes.md").write_text("# Notes\nsome text\n")
    image = read_attachment("shot.png", start_folder=tmp_path)
    notes = read_attachment("notes.md", start_folder=tmp_path)
    dialog = center.create_dialog()
    dialog.append_message(Message(Role.USER, "what is this?", attachments=[image, notes]))
    dialog.append_message(Role.ASSISTANT, "a blue square")
    dialog.append_message(Message(Role.USER, "and again?", attachments=[image]))

    assert raw_rows(home, "SELECT sha256, size FROM attachments ORDER BY size") == sorted(
        [(notes.sha256, notes.size), (image.sha256, image.size)], key=lambda r: r[1]
    )
    refs = json.loads(str(raw_rows(home, "SELECT attachments FROM messages WHERE position = 0")[0][0]))
    assert [r["sha256"] for r in refs] == [image.sha256, notes.sha256]
    assert all("data" not in r for r in refs)  # the message row holds the reference only

    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None
        first = loaded.message_at(0).attachments
        assert [(a.name, a.kind, a.data) for a in first] == [
            ("shot.png", image.kind, image.data),
            ("notes.md", notes.kind, notes.data),
        ]
        assert (first[0].width, first[0].height) == (40, 30)
        assert loaded.message_at(2).attachments[0].data == image.data
        # a branch sharing the question shares the row
        branch = again.branch_at(loaded, 1)
        assert branch.message_at(0).attachments[0].sha256 == image.sha256
        assert raw_rows(home, "SELECT count(*) FROM attachments") == [(2,)]
    finally:
        again.close()


def test_a_content_no_message_names_is_dropped_with_its_last_message(
    center: Center, home: Path, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    a = read_attachment("a.txt", start_folder=tmp_path)
    b = read_attachment("b.txt", start_folder=tmp_path)
    keep = center.create_dialog()
    keep.append_message(Message(Role.USER, "a", attachments=[a]))
    gone = center.create_dialog()
    gone.append_message(Message(Role.USER, "a and b", attachments=[a, b]))
    gone.append_message(Message(Role.USER, "b again", attachments=[b]))
    assert raw_rows(home, "SELECT count(*) FROM attachments") == [(2,)]
    gone.truncate_to(1)
    assert raw_rows(home, "SELECT count(*) FROM attachments") == [(2,)]  # b is still named by message 0
    center.remove_dialog(gone.id)
    assert raw_rows(home, "SELECT sha256 FROM attachments") == [(a.sha256,)]


def test_a_version_5_store_gains_the_attachments_table_and_keeps_its_messages(tmp_path: Path) -> None:
    from visindigo.engine.storage.schema import MIGRATIONS

    conn = sqlite3.connect(tmp_path / "old.sqlite3", isolation_level=None)
    migrate(conn, MIGRATIONS[:5])
    conn.execute("INSERT INTO dialogs (id, created_at, updated_at) VALUES ('d', 1, 1)")
    conn.execute(
        "INSERT INTO messages (dialog_id, position, role, content, created_at) VALUES ('d', 0, 'user', 'hi', 1)"
    )
    assert migrate(conn) == ["attached files, stored once by their hash"]
    assert list(conn.execute("SELECT content, attachments FROM messages")) == [("hi", "")]
    conn.close()
