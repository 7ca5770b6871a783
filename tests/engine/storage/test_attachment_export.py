"""Attached files in exports: the JSON export carries them (base64) and import restores them into the store; the
Markdown export writes them beside the `.md` and links them."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import unquote

from visindigo.engine import Center, Message, Role
from visindigo.engine.attachments import read_attachment
from visindigo.engine.export import export_json, export_markdown, import_json, write_markdown_export

from ..attachments.files import png
from .conftest import raw_rows


def dialog_with_files(center: Center, folder: Path) -> str:
    (folder / "shot.png").write_bytes(png(20, 10))
    (folder / "../evil name\x1b]2;x\x07.txt").resolve().write_text("hello\n")
    image = read_attachment("shot.png", start_folder=folder)
    text = read_attachment(folder.parent / "evil name\x1b]2;x\x07.txt", start_folder=folder)
    dialog = center.create_dialog()
    dialog.title = "Files"
    dialog.append_message(Message(Role.USER, "look", attachments=[image, text]))
    dialog.append_message(Role.ASSISTANT, "seen")
    return dialog.id


def test_the_json_export_carries_the_files_and_import_puts_them_in_the_store(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    source = Center.open(tmp_path / "a")
    try:
        dialog_id = dialog_with_files(source, work)
        exported = export_json(source, dialog_id)
    finally:
        source.close()
    entry = json.loads(exported)["dialogs"][0]["messages"][0]["attachments"][0]
    assert base64.b64decode(entry["data"]) == (work / "shot.png").read_bytes()
    (tmp_path / "export.json").write_text(exported)

    target = Center.open(tmp_path / "b")
    try:
        result = import_json(target, tmp_path / "export.json")
        assert result.imported == [dialog_id] and not result.problems
        assert raw_rows(tmp_path / "b", "SELECT count(*) FROM attachments") == [(2,)]
        loaded = target.get_dialog(dialog_id)
        assert loaded is not None
        assert loaded.message_at(0).attachments[0].data == (work / "shot.png").read_bytes()
        assert export_json(target, dialog_id) == exported  # export, import, export: the same bytes
    finally:
        target.close()


def test_the_markdown_export_writes_the_files_beside_it_and_links_them(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    center = Center.open(tmp_path / "home")
    try:
        dialog_id = dialog_with_files(center, work)
        written = write_markdown_export(center, dialog_id, tmp_path / "out" / "chat.md")
        bare = export_markdown(center, dialog_id)
    finally:
        center.close()
    text = written.read_text()
    links = [line for line in text.splitlines() if line.startswith("📎")]
    assert len(links) == 2
    assert links[0].startswith("📎 [shot.png](chat.files/")
    assert "(image · 20×10 ·" in links[0]
    assert "\x1b" not in text and "\x07" not in text
    for line in links:
        target = unquote(line.split("](", 1)[1].split(")", 1)[0])
        assert (written.parent / target).is_file()
    files = sorted(p.name for p in (written.parent / "chat.files").iterdir())
    assert len(files) == 2 and all(".." not in name and "\x1b" not in name for name in files)
    saved_png = next(p for p in (written.parent / "chat.files").iterdir() if p.name.endswith("shot.png"))
    assert saved_png.read_bytes() == (work / "shot.png").read_bytes()
    assert "📎 shot.png (image · 20×10" in bare  # to stdout: named, not linked


def test_an_imported_attachment_that_is_not_what_it_says_is_left_out_and_named(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    source = Center.open(tmp_path / "a")
    try:
        dialog_id = dialog_with_files(source, work)
        document = json.loads(export_json(source, dialog_id))
    finally:
        source.close()
    attachments = document["dialogs"][0]["messages"][0]["attachments"]
    attachments[1]["kind"] = "image"  # a text file marked as an image: it would go out as one
    attachments.append("not an object")
    (tmp_path / "edited.json").write_text(json.dumps(document))
    target = Center.open(tmp_path / "b")
    try:
        result = import_json(target, tmp_path / "edited.json")
        assert result.imported == [dialog_id] and not result.problems
        assert any("attachment #2 left out" in w and "marked as image, but its content is not one" in w
                   for w in result.warnings)  # fmt: skip
        assert any("attachment #3 is text, not an object; left out" in w for w in result.warnings)
        loaded = target.get_dialog(dialog_id)
        assert loaded is not None and [a.name for a in loaded.message_at(0).attachments] == ["shot.png"]
    finally:
        target.close()
