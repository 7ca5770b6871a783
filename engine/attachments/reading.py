"""Reading a path into an `Attachment`: every way a file can be wrong is a one-line `AttachmentError`.

The kind is decided by the content (image and PDF magic bytes, else valid UTF-8 without NUL), never by the name.
Refused, each before anything is sent: a missing path, a folder, a fifo, socket or device (a fifo would block
the reader forever), a file over `MAX_FILE_BYTES` (by its size, before a byte is read), an unreadable file, a
file that changes while it is read (size, modification and change times, and the number of bytes read are
compared before and after), a broken or truncated image, an image that no provider's limits fit even scaled
down, a symbolic link inside the start folder that leads out of it, a binary file that is neither an image nor a
PDF. A text file over the limit is `AttachmentTooLarge`, which offers its first part.

File names are outside text: every message names the file as `clean_line` shows it.
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..sanitize import clean_line
from .errors import AttachmentError
from .limits import ANTHROPIC_IMAGE_LIMITS, DEFAULT_TEXT_LIMIT, MAX_FILE_BYTES, OPENAI_IMAGE_LIMITS, ImageLimits
from .model import HEAD_BYTES, Attachment, AttachmentKind, AttachmentTooLarge, human_size, sniff_kind

__all__ = ["CHUNK_BYTES", "read_attachment", "resolve"]

CHUNK_BYTES = 1024 * 1024
#: Every provider's limits: an image is refused only when it fits none of them.
ALL_IMAGE_LIMITS = (OPENAI_IMAGE_LIMITS, ANTHROPIC_IMAGE_LIMITS)


def read_attachment(
    path: str | os.PathLike[str],
    *,
    start_folder: str | os.PathLike[str],
    text_limit: int | None = None,
    room: int | None = None,
    image_limits: Sequence[ImageLimits] = ALL_IMAGE_LIMITS,
    max_bytes: int = MAX_FILE_BYTES,
) -> Attachment:
    """The file at `path` (relative to `start_folder`, or absolute) as an attachment.

    `text_limit` is the most bytes a text file may bring (default `DEFAULT_TEXT_LIMIT`; see `limits.text_limit`
    for the configured one) and `room` the bytes the model's window has left (`limits.window_room`): the smaller
    applies. Raises `AttachmentTooLarge` for a longer text file, `AttachmentError` for everything else wrong.
    Blocking (it reads the file and decodes images): the app calls it from a worker thread.
    """
    full, name, shown = resolve(path, start_folder)
    limit = min(text_limit if text_limit is not None else DEFAULT_TEXT_LIMIT, room if room is not None else max_bytes)
    limit = max(0, limit)
    try:
        before = os.stat(full)
    except FileNotFoundError:
        raise AttachmentError(f"there is no file {shown}") from None
    except NotADirectoryError:
        raise AttachmentError(f"there is no file {shown} (a part of the path is not a folder)") from None
    except PermissionError:
        raise AttachmentError(f"{shown} cannot be read (permission denied)") from None
    except OSError as error:
        raise AttachmentError(f"{shown} cannot be read: {clean_line(error.strerror or str(error), 60)}") from None
    _check_type(before.st_mode, shown)
    if before.st_size > max_bytes:
        raise AttachmentError(
            f"{shown} is {human_size(before.st_size)}; files up to {human_size(max_bytes)} can be attached"
        )
    head, kind, whole = _read(full, before, shown, limit)
    if kind is None:
        raise AttachmentError(
            f"{shown} is a binary file ({human_size(whole)}), not text, an image (PNG, JPEG, WebP, GIF) or a PDF"
        )
    if kind is AttachmentKind.TEXT:
        if whole > limit and limit == 0:
            raise AttachmentError(f"the model's window has no room left for {shown} ({human_size(whole)} of text)")
        if whole > limit:
            roomy = room is not None and room < (text_limit if text_limit is not None else DEFAULT_TEXT_LIMIT)
            why = "what the model's window has left" if roomy else "the limit for one file"
            raise AttachmentTooLarge(
                f"{shown} is {human_size(whole)} of text, more than {why} ({human_size(limit)}); "
                f"its first {human_size(limit)} can be attached instead",
                name=name,
                head=head,
                whole_size=whole,
                limit=limit,
            )
        return Attachment(name, kind, "text/plain", head)
    if kind is AttachmentKind.IMAGE:
        return _image(name, head, shown, image_limits)
    from .pdf import check_pdf

    pages = check_pdf(head, shown)
    return Attachment(name, kind, "application/pdf", head, pages=pages)


def resolve(path: str | os.PathLike[str], start_folder: str | os.PathLike[str]) -> tuple[Path, str, str]:
    """The path to open, the name the model reads, and the name messages show; refuses a symbolic link that
    leads out of the start folder.

    A path inside the start folder (as written) must stay inside once links are followed: a link in a project
    pointing at `~/.ssh/id_rsa` is not attached because its name was picked from a completion list. A path
    outside the start folder was named on purpose (a screenshot dropped from the desktop) and is read as given.
    """
    text = os.fsdecode(path).strip()
    if not text:
        raise AttachmentError("no file was named")
    start = Path(os.path.abspath(os.path.expanduser(os.fspath(start_folder))))
    given = Path(os.path.expanduser(text))
    lexical = Path(os.path.normpath(given if given.is_absolute() else start / given))
    shown = repr(_path_line(text))
    inside = lexical == start or start in lexical.parents
    if inside:
        real_start = Path(os.path.realpath(start))
        real = Path(os.path.realpath(lexical))
        if real != real_start and real_start not in real.parents:
            raise AttachmentError(
                f"{shown} is a symbolic link leading out of the start folder; name the file it points to instead"
            )
        name = lexical.relative_to(start).as_posix()
    else:
        name = lexical.name
    return lexical, name or lexical.name, shown


def _path_line(text: str, limit: int = 60) -> str:
    """A path for a one-line message: a long one keeps its end (the file's name), its beginning cut to "…"."""
    line = clean_line(text, 4096)
    return line if len(line) <= limit else "…" + line[-(limit - 1) :].lstrip()


def _check_type(mode: int, shown: str) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise AttachmentError(f"{shown} is a folder; attach the files in it one by one")
    what = (
        "a named pipe (fifo)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise AttachmentError(f"{shown} is {what}; only regular files can be attached")


def _read(full: Path, before: os.stat_result, shown: str, limit: int) -> tuple[bytes, AttachmentKind | None, int]:
    """(bytes kept, kind, bytes in the file): all of an image or PDF; of text, the first `limit` + 4 bytes (enough
    to cut at a line end) while the rest is still checked to be text."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(full, flags)  # O_NONBLOCK: a fifo put in the file's place since stat() cannot hang us
    except PermissionError:
        raise AttachmentError(f"{shown} cannot be read (permission denied)") from None
    except OSError as error:
        raise AttachmentError(f"{shown} cannot be read: {clean_line(error.strerror or str(error), 60)}") from None
    try:
        opened = os.fstat(fd)
        _check_type(opened.st_mode, shown)
        if (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
            raise _changed(shown)
        kept: list[bytes] = []
        kept_size = 0
        total = 0
        kind: AttachmentKind | None = None
        decoder = codecs.getincrementaldecoder("utf-8")()
        text = True
        for chunk in read_chunks(fd):
            if total == 0:
                sniffed = sniff_kind(chunk[:HEAD_BYTES])
                kind = sniffed[0] if sniffed is not None else None
            total += len(chunk)
            if total > before.st_size:
                raise _changed(shown)
            if kind is None and text:
                try:
                    decoder.decode(chunk)
                except UnicodeDecodeError:
                    text = False
                text = text and b"\x00" not in chunk
            if kind is not None or kept_size <= limit + 4:
                kept.append(chunk)
                kept_size += len(chunk)
        after = os.fstat(fd)
    except OSError as error:
        raise AttachmentError(f"{shown} cannot be read: {clean_line(error.strerror or str(error), 60)}") from None
    finally:
        os.close(fd)
    if total != before.st_size or _stamp(after) != _stamp(before):
        raise _changed(shown)
    if kind is None and text:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            text = False
        if text:
            kind = AttachmentKind.TEXT
    data = b"".join(kept)
    if kind is AttachmentKind.TEXT and total > limit:
        data = data[: limit + 4]
    return data, kind, total


def read_chunks(fd: int) -> Iterator[bytes]:
    """The file's bytes, a chunk at a time, until its end."""
    while True:
        chunk = os.read(fd, CHUNK_BYTES)
        if not chunk:
            return
        yield chunk


def _stamp(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns


def _changed(shown: str) -> AttachmentError:
    return AttachmentError(f"{shown} changed while it was read; attach it again once it is written")


def _image(name: str, data: bytes, shown: str, limits: Sequence[ImageLimits]) -> Attachment:
    from .images import check_image, prepare_image

    width, height, mime = check_image(data, shown)
    attachment = Attachment(name, AttachmentKind.IMAGE, mime, data, width=width, height=height)
    problem: AttachmentError | None = None
    for each in limits:
        try:
            prepare_image(attachment, each)  # cached: the first send does not scale it again
        except AttachmentError as error:
            problem = error
        else:
            return attachment
    if problem is not None:
        raise problem
    return attachment
