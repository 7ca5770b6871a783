"""Checking a PDF with pypdf, and its text for providers that take no PDF documents.

pypdf is imported here only, when a PDF is attached or its text is needed. The text is extracted once per
content and kept in a small cache: a tool loop sends the same question several times.
"""

from __future__ import annotations

import io
import logging
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from .errors import AttachmentError, reason

if TYPE_CHECKING:
    from pypdf import PdfReader

    from .model import Attachment

__all__ = ["check_pdf", "pdf_text"]

_CACHE_SIZE = 8
_cache: OrderedDict[str, str] = OrderedDict()
_cache_lock = threading.Lock()


def check_pdf(data: bytes, shown: str) -> int:
    """The page count of a PDF pypdf can open; `AttachmentError` for a broken or encrypted one."""
    reader = _reader(data, shown)
    try:
        return len(reader.pages)
    except Exception as error:  # pypdf raises many kinds on damaged files
        raise AttachmentError(f"{shown} is a broken PDF ({reason(error)})") from None


def pdf_text(attachment: Attachment) -> str:
    """The text of every page, each after a "--- page N of M ---" line; a page without text says so."""
    with _cache_lock:
        found = _cache.get(attachment.sha256)
        if found is not None:
            _cache.move_to_end(attachment.sha256)
            return found
    reader = _reader(attachment.data, repr(attachment.display_name))
    pages = reader.pages
    parts = []
    for number, page in enumerate(pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception as error:  # one unreadable page must not lose the others
            text = f"[the text of this page could not be read: {reason(error)}]"
        text = text.strip() or "[no text on this page: it may be a scanned image]"
        parts.append(f"--- page {number} of {len(pages)} ---\n{text}")
    result = "\n\n".join(parts)
    with _cache_lock:
        _cache[attachment.sha256] = result
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return result


def _reader(data: bytes, shown: str) -> PdfReader:
    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about sloppy files are not the user's
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise AttachmentError(f"{shown} is an encrypted PDF; save a copy without a password to attach it")
    except AttachmentError:
        raise
    except Exception as error:  # pypdf raises many kinds on damaged files
        raise AttachmentError(f"{shown} is a broken PDF ({reason(error)})") from None
    return reader
