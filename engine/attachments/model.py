"""An attached file as a value: its bytes, what kind of content they are, and its name.

A message carries its attachments whole (`Message.attachments`), so a dialog stays one value that can be copied
into a branch, a compare column or an export without a store behind it. The bytes are the file as read — the
original, never the scaled copy sent to a provider — and `sha256` names them: the store keeps each distinct
content once under it, and two messages holding the same file share one row.

This module imports neither Pillow nor pypdf: a dialog with attachments loads without them.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import field
from enum import StrEnum
from typing import Any

from ..record import record
from ..sanitize import clean_line
from .errors import AttachmentError

__all__ = ["HEAD_BYTES", "Attachment", "AttachmentKind", "AttachmentTooLarge", "human_size", "is_text", "sniff_kind"]


class AttachmentKind(StrEnum):
    """What the bytes are, decided by their content (magic bytes, or valid UTF-8 without NUL), never by the name."""

    TEXT = "text"
    IMAGE = "image"
    PDF = "pdf"


#: Magic bytes of the image formats both wire formats accept, with their MIME types.
_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
_PDF_MAGIC = b"%PDF-"
#: How many leading bytes `sniff_kind` looks at.
HEAD_BYTES = 16


def sniff_kind(head: bytes) -> tuple[AttachmentKind, str] | None:
    """The kind and MIME type that the first bytes of a file show by their magic, or None (maybe text).

    Only a header at the very start counts: a text file that mentions "%PDF-" on its first line stays text.
    """
    for magic, mime in _IMAGE_MAGIC:
        if head.startswith(magic):
            return AttachmentKind.IMAGE, mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return AttachmentKind.IMAGE, "image/webp"
    if head.startswith(_PDF_MAGIC):
        return AttachmentKind.PDF, "application/pdf"
    return None


def is_text(data: bytes) -> bool:
    """Valid UTF-8 without NUL: what is sent as text, whatever the file is called."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def human_size(size: int) -> str:
    """ "812 B", "12.3 kB", "4.1 MB", "2.0 GB" (powers of 1000, as file managers show them)."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 999.95 or unit == "TB":
            return f"{value:.1f} {unit}"
    return f"{value:.1f} TB"  # pragma: no cover - the loop always returns


@record(frozen=True, slots=True)
class Attachment:
    """A file attached to a user message.

    `name` is how the file is shown and headed for the model: its path relative to the start folder, or its own
    name for a file outside it. It is outside text (a file may be called anything, escape sequences included):
    `label` and `display_name` are the forms to put on a terminal. `whole_size` is set when `data` holds only the
    first part of a longer text file (the user took the part offered by `AttachmentTooLarge`); the model is told.
    Frozen: copies of a message share the bytes.
    """

    name: str
    kind: AttachmentKind
    mime_type: str
    data: bytes = field(repr=False)
    sha256: str = ""
    whole_size: int = 0
    #: Pixels of an image (0 when unknown); pages of a PDF (0 when unknown).
    width: int = 0
    height: int = 0
    pages: int = 0

    def __post_init__(self) -> None:
        if not self.sha256:
            import hashlib  # here: OpenSSL's bindings cost the first frame ~12 M instructions and `ask` 3 ms

            object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def is_part(self) -> bool:
        """Only the first part of the file was taken."""
        return self.whole_size > len(self.data)

    @property
    def text(self) -> str:
        """The content of a text attachment ("" for other kinds)."""
        return self.data.decode("utf-8", errors="replace") if self.kind is AttachmentKind.TEXT else ""

    @property
    def display_name(self) -> str:
        """The name, safe for a terminal and one line."""
        return clean_line(self.name, 60) or "(unnamed)"

    def details(self) -> str:
        """Kind and size for a chip or a message line: "image · 1920×1080 · 2.1 MB", "text · first 100.0 kB of 3.2
        MB"."""
        parts = [self.kind.value]
        if self.kind is AttachmentKind.IMAGE and self.width and self.height:
            parts.append(f"{self.width}×{self.height}")
        if self.kind is AttachmentKind.PDF and self.pages:
            parts.append(f"{self.pages} page{'s' if self.pages != 1 else ''}")
        if self.is_part:
            parts.append(f"first {human_size(self.size)} of {human_size(self.whole_size)}")
        else:
            parts.append(human_size(self.size))
        return " · ".join(parts)

    def label(self) -> str:
        """ "notes.md (text · 12.3 kB)": what a chip over the composer or the attachment line of a message shows."""
        return f"{self.display_name} ({self.details()})"

    # --- JSON -------------------------------------------------------------------------------------------------

    def reference_json(self) -> dict[str, Any]:
        """Everything but the bytes: what a message row of the store holds (the bytes live once, under `sha256`)."""
        data: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind.value,
            "mime_type": self.mime_type,
            "sha256": self.sha256,
            "size": self.size,
        }
        for key in ("whole_size", "width", "height", "pages"):
            value = getattr(self, key)
            if value:
                data[key] = value
        return data

    def to_json(self) -> dict[str, Any]:
        """The reference plus the bytes as base64: a dialog document (an export) carries its files."""
        return {**self.reference_json(), "data": base64.b64encode(self.data).decode("ascii")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Attachment:
        """Read `to_json`. The hash is computed again from the bytes, and the kind must be what the bytes show: an
        export edited by hand cannot smuggle in bytes that go out as an image without being one. Raises
        `AttachmentError` saying what is wrong."""
        name = str(data.get("name") or "")
        shown = clean_line(name, 60) or "an attachment"
        encoded = data.get("data")
        if not isinstance(encoded, str):
            raise AttachmentError(f"{shown}: its content is missing")
        try:
            content = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise AttachmentError(f"{shown}: its content is not valid base64") from None
        try:
            kind = AttachmentKind(str(data.get("kind")))
        except ValueError:
            raise AttachmentError(f"{shown}: unknown kind {clean_line(str(data.get('kind')), 20)!r}") from None
        sniffed = sniff_kind(content[:HEAD_BYTES])
        if kind is AttachmentKind.TEXT:
            if sniffed is not None or not is_text(content):
                raise AttachmentError(f"{shown}: marked as text, but its content is not UTF-8 text")
            mime = str(data.get("mime_type") or "text/plain")
        else:
            if sniffed is None or sniffed[0] is not kind:
                raise AttachmentError(f"{shown}: marked as {kind.value}, but its content is not one")
            mime = sniffed[1]
        return cls(
            name=name,
            kind=kind,
            mime_type=mime,
            data=content,
            whole_size=_count(data.get("whole_size")),
            width=_count(data.get("width")),
            height=_count(data.get("height")),
            pages=_count(data.get("pages")),
        )


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class AttachmentTooLarge(AttachmentError):
    """A text file over the limit. `first_part()` is the attachment cut to the limit at a line end, marked as a
    part (its header tells the model how much of the file it reads)."""

    def __init__(self, message: str, *, name: str, head: bytes, whole_size: int, limit: int) -> None:
        super().__init__(message)
        self.name = name
        #: The file's first bytes as read (at least `limit` of them, or all when the file is shorter).
        self._head = head
        self.whole_size = whole_size
        self.limit = limit

    def first_part(self, limit: int | None = None) -> Attachment:
        """The first `limit` bytes (default: the limit that was exceeded), ending at the last line end within them
        — or at a character boundary when the first line alone is longer."""
        size = self.limit if limit is None else max(0, min(limit, len(self._head)))
        part = self._head[:size]
        newline = part.rfind(b"\n")
        # without a line end: drop a character cut in half
        part = part[: newline + 1] if newline >= 0 else part.decode("utf-8", errors="ignore").encode("utf-8")
        return Attachment(self.name, AttachmentKind.TEXT, "text/plain", part, whole_size=self.whole_size)
