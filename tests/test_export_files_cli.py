"""`visindigo export ID -o chat.md`: the attached files go into `chat.files/` beside it, linked from the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from visindigo.cli import main
from visindigo.engine import Center, Message, Role
from visindigo.engine.attachments import Attachment, AttachmentKind


def test_a_markdown_export_to_a_file_writes_the_attached_files_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    center = Center.open(tmp_path)
    try:
        dialog = center.create_dialog()
        log = Attachment("../../etc/build.log", AttachmentKind.TEXT, "text/plain", b"error: x\n")
        dialog.append_message(Message(Role.USER, "Why does it fail?", attachments=[log]))
        dialog_id = dialog.id
    finally:
        center.close()
    target = tmp_path / "out" / "chat.md"
    status = main(["export", dialog_id, "-o", str(target), "--data-dir", str(tmp_path / "data")])
    assert status == 0 and f"Wrote {target} (markdown)" in capsys.readouterr().err
    [saved] = list((tmp_path / "out" / "chat.files").iterdir())
    assert saved.name.endswith("-build.log") and saved.read_bytes() == b"error: x\n"  # never ../../etc
    assert f"](chat.files/{saved.name})" in target.read_text(encoding="utf-8")
