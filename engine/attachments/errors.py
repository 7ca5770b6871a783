"""Why a file cannot be attached, in one line the composer or `visindigo ask` shows as it is.

Every refusal happens before anything is sent, and the caller keeps what the user typed. `AttachmentTooLarge`
is the one refusal that offers a way on: the first part of the text, cut at a line end, never cut silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Attachment

__all__ = ["AttachmentError", "AttachmentTooLarge", "reason"]


class AttachmentError(ValueError):
    """A file that cannot be attached, or sent; `message` (also `str(error)`) is one line, names already cleaned."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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
        from .model import Attachment, AttachmentKind

        size = self.limit if limit is None else max(0, min(limit, len(self._head)))
        part = self._head[:size]
        newline = part.rfind(b"\n")
        # without a line end: drop a character cut in half
        part = part[: newline + 1] if newline >= 0 else part.decode("utf-8", errors="ignore").encode("utf-8")
        return Attachment(self.name, AttachmentKind.TEXT, "text/plain", part, whole_size=self.whole_size)


def reason(error: BaseException) -> str:
    """A library's exception as a short clause for the end of a one-line message (it may quote the file: cleaned)."""
    from ..sanitize import clean_line

    return clean_line(str(error), 80) or type(error).__name__
