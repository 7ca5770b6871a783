"""Why a file cannot be attached, in one line the composer or `visindigo ask` shows as it is.

Every refusal happens before anything is sent, and the caller keeps what the user typed. `AttachmentTooLarge`
(in `model`, beside the attachment it offers) is the one refusal that offers a way on: the first part of the
text, cut at a line end, never cut silently.
"""

from __future__ import annotations

__all__ = ["AttachmentError", "reason"]


class AttachmentError(ValueError):
    """A file that cannot be attached, or sent; `message` (also `str(error)`) is one line, names already cleaned."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def reason(error: BaseException) -> str:
    """A library's exception as a short clause for the end of a one-line message (it may quote the file: cleaned)."""
    from ..sanitize import clean_line

    return clean_line(str(error), 80) or type(error).__name__
