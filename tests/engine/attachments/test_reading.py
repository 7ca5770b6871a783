"""Reading a path into an attachment: the kind by content, and every bad input refused in one line.

Real files in a temporary folder: a fifo made with mkfifo, a sparse 2 GB file, real images made with Pillow (one
truncated), a symbolic link out of the start folder, a file that really changes while it is read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.attachments.files import encoded, make_pdf, png
from visindigo.engine.attachments import (
    AttachmentError,
    AttachmentKind,
    AttachmentTooLarge,
    ImageLimits,
    read_attachment,
    reading,
)


def refused(path: str | Path, folder: Path, **kwargs: object) -> str:
    with pytest.raises(AttachmentError) as caught:
        read_attachment(path, start_folder=folder, **kwargs)  # type: ignore[arg-type]
    message = caught.value.message
    assert "\n" not in message and "\x1b" not in message and message == str(caught.value)
    return message


# --- kinds, decided by content ---------------------------------------------------------------------------------


def test_text_is_decided_by_content_not_by_the_name(tmp_path: Path) -> None:
    (tmp_path / "notes.png").write_text("not an image at all\n", encoding="utf-8")
    (tmp_path / "script").write_text("#!/bin/sh\necho ünïcode\n", encoding="utf-8")
    first = read_attachment("notes.png", start_folder=tmp_path)
    second = read_attachment(tmp_path / "script", start_folder=tmp_path)
    assert (first.kind, first.text) == (AttachmentKind.TEXT, "not an image at all\n")
    assert (second.kind, second.name, second.text) == (AttachmentKind.TEXT, "script", "#!/bin/sh\necho ünïcode\n")


@pytest.mark.parametrize(("fmt", "mime"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp"),
                                           ("GIF", "image/gif")])  # fmt: skip
def test_images_are_known_by_their_magic_bytes(tmp_path: Path, fmt: str, mime: str) -> None:
    (tmp_path / "picture.txt").write_bytes(encoded(fmt))
    attachment = read_attachment("picture.txt", start_folder=tmp_path)
    assert (attachment.kind, attachment.mime_type, attachment.width, attachment.height) == (
        AttachmentKind.IMAGE, mime, 64, 48,
    )  # fmt: skip
    assert attachment.data == (tmp_path / "picture.txt").read_bytes()


def test_a_pdf_is_known_by_its_magic_and_counted(tmp_path: Path) -> None:
    (tmp_path / "paper").write_bytes(make_pdf(["first page", "second page"]))
    attachment = read_attachment("paper", start_folder=tmp_path)
    assert (attachment.kind, attachment.mime_type, attachment.pages) == (AttachmentKind.PDF, "application/pdf", 2)
    assert attachment.label() == f"paper (pdf · 2 pages · {attachment.details().split(' · ')[-1]})"


def test_names_are_relative_to_the_start_folder_and_cleaned_for_display(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    hostile = "evil\x1b]2;PWNED\x07\u202e.py"
    (tmp_path / "src" / hostile).write_text("x = 1\n")
    attachment = read_attachment(f"src/{hostile}", start_folder=tmp_path)
    assert attachment.name == f"src/{hostile}"  # what the file is called, as the model is told (cleaned there too)
    assert attachment.display_name == "src/evil.py" and "\x1b" not in attachment.label()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("hello\n")
    try:
        assert read_attachment(outside, start_folder=tmp_path).name == outside.name  # no home folder leaks
    finally:
        outside.unlink()


# --- bad input ----------------------------------------------------------------------------------------------


def test_a_missing_path(tmp_path: Path) -> None:
    assert refused("nope.txt", tmp_path) == "there is no file 'nope.txt'"
    assert "no file was named" in refused("  ", tmp_path)
    (tmp_path / "file").write_text("x")
    assert "not a folder" in refused("file/inside", tmp_path)


def test_a_folder(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    assert refused("docs", tmp_path) == "'docs' is a folder; attach the files in it one by one"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert refused("pipe", tmp_path) == "'pipe' is a named pipe (fifo); only regular files can be attached"


def test_a_device(tmp_path: Path) -> None:
    assert "is a device" in refused("/dev/null", tmp_path)


def test_a_2_gb_file_is_refused_by_its_size_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "huge.log"
    with big.open("wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: no disk used
    monkeypatch.setattr(reading, "read_chunks", lambda fd: pytest.fail("a file over the size limit was read"))
    assert refused("huge.log", tmp_path) == "'huge.log' is 2.1 GB; files up to 268.4 MB can be attached"


def test_an_unreadable_file(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        secret = tmp_path / "secret.txt"
        secret.write_text("x")
        secret.chmod(0)
        assert refused("secret.txt", tmp_path) == "'secret.txt' cannot be read (permission denied)"
        return
    # root reads any file: read it as `nobody` (the effective user only, given back after), in a folder anyone
    # may enter, so that it is opening the file that fails
    folder = Path(tempfile.mkdtemp(prefix="visindigo-unreadable-"))
    try:
        folder.chmod(0o755)
        (folder / "secret.txt").write_text("x")
        (folder / "secret.txt").chmod(0o600)
        os.seteuid(65534)
        try:
            message = refused("secret.txt", folder)
        finally:
            os.seteuid(0)
        assert message == "'secret.txt' cannot be read (permission denied)"
    finally:
        shutil.rmtree(folder)


def test_a_file_that_changes_while_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    growing = tmp_path / "growing.log"
    growing.write_bytes(b"line\n" * 1000)
    real_chunks = reading.read_chunks

    def chunks_while_appending(fd: int) -> Iterator[bytes]:
        for number, chunk in enumerate(real_chunks(fd)):
            if number == 0:
                with growing.open("ab") as writer:  # another program appends between two reads
                    writer.write(b"more\n")
            yield chunk

    monkeypatch.setattr(reading, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(reading, "read_chunks", chunks_while_appending)
    assert (
        refused("growing.log", tmp_path)
        == "'growing.log' changed while it was read; attach it again once it is written"
    )


def test_a_file_rewritten_at_the_same_size_while_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "same.txt"
    target.write_bytes(b"a" * 4096)
    real_chunks = reading.read_chunks

    def chunks_while_rewriting(fd: int) -> Iterator[bytes]:
        for number, chunk in enumerate(real_chunks(fd)):
            if number == 0:
                with target.open("r+b") as writer:
                    writer.write(b"b" * 10)
                stamp = os.stat(target)
                os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
            yield chunk

    monkeypatch.setattr(reading, "CHUNK_BYTES", 1024)
    monkeypatch.setattr(reading, "read_chunks", chunks_while_rewriting)
    assert "changed while it was read" in refused("same.txt", tmp_path)


def test_a_truncated_png(tmp_path: Path) -> None:
    whole = png(300, 200, noise=True)
    (tmp_path / "cut.png").write_bytes(whole[: len(whole) // 2])
    assert refused("cut.png", tmp_path).startswith("'cut.png' is a broken or truncated image")


def test_a_broken_image_header(tmp_path: Path) -> None:
    (tmp_path / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 20)
    assert refused("bad.png", tmp_path).startswith("'bad.png' is a broken")


def test_an_image_over_every_limit_after_scaling(tmp_path: Path) -> None:
    (tmp_path / "noise.png").write_bytes(png(400, 400, noise=True))
    tiny = (ImageLimits(long_side=200, max_bytes=2000, provider="A"), ImageLimits(100, 600, provider="B"))
    message = refused("noise.png", tmp_path, image_limits=tiny)
    assert message.startswith("'noise.png' is too large to send even scaled down to 100×100 and compressed")
    assert "over B's 600 B" in message
    # fitting one provider's limits is enough to attach it
    assert read_attachment("noise.png", start_folder=tmp_path, image_limits=(tiny[0], ImageLimits(400, 10**7))).width


def test_a_symlink_leading_out_of_the_start_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    (project / "notes.txt").symlink_to(secret)
    (project / "inside.txt").write_text("fine\n")
    (project / "link-inside.txt").symlink_to(project / "inside.txt")
    (project / "docs").symlink_to(tmp_path)
    assert refused("notes.txt", project) == (
        "'notes.txt' is a symbolic link leading out of the start folder; name the file it points to instead"
    )
    assert "leading out" in refused("docs/id_rsa", project)
    assert "leading out" in refused(project / "notes.txt", project)
    assert read_attachment("link-inside.txt", start_folder=project).text == "fine\n"
    assert read_attachment(secret, start_folder=project).text == "PRIVATE KEY\n"  # named on purpose: read


def test_a_binary_file_that_is_not_an_image_or_pdf(tmp_path: Path) -> None:
    (tmp_path / "program").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 4)
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "nul.txt").write_bytes(b"text\x00with a NUL\n")
    expected = "'program' is a binary file (1.0 kB), not text, an image (PNG, JPEG, WebP, GIF) or a PDF"
    assert refused("program", tmp_path) == expected
    assert "binary file" in refused("latin1.txt", tmp_path) and "binary file" in refused("nul.txt", tmp_path)


def test_a_broken_pdf(tmp_path: Path) -> None:
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00\xff" * 50)
    assert refused("bad.pdf", tmp_path).startswith("'bad.pdf' is a broken PDF")


# --- text over the limit ------------------------------------------------------------------------------------


def test_text_over_the_limit_is_refused_and_its_first_part_offered(tmp_path: Path) -> None:
    lines = [f"line {n:04d} of the log\n" for n in range(1000)]  # 21 bytes a line
    (tmp_path / "build.log").write_text("".join(lines))
    with pytest.raises(AttachmentTooLarge) as caught:
        read_attachment("build.log", start_folder=tmp_path, text_limit=1000)
    error = caught.value
    assert error.message == (
        "'build.log' is 21.0 kB of text, more than the limit for one file (1.0 kB); its first 1.0 kB can be "
        "attached instead"
    )
    part = error.first_part()
    assert part.text == "".join(lines[:47]) and part.size == 987  # cut at the last line end within the limit
    assert (part.is_part, part.whole_size) == (True, 21000)
    assert part.details() == "text · first 987 B of 21.0 kB"
    assert error.first_part(100).text == "".join(lines[:4])


def test_the_room_left_in_the_window_can_be_the_smaller_limit(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("é" * 3000)  # one line, two bytes a character
    with pytest.raises(AttachmentTooLarge) as caught:
        read_attachment("notes.md", start_folder=tmp_path, text_limit=100_000, room=1001)
    assert "more than what the model's window has left (1.0 kB)" in caught.value.message
    part = caught.value.first_part()
    assert part.text == "é" * 500  # no line end: cut at a character boundary, never in half
    assert "no room left" in refused("notes.md", tmp_path, room=0)


def test_text_at_the_limit_is_attached_whole(tmp_path: Path) -> None:
    (tmp_path / "exact.txt").write_bytes(b"a" * 999 + b"\n")
    assert read_attachment("exact.txt", start_folder=tmp_path, text_limit=1000).size == 1000
