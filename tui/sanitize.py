"""Making untrusted text (model output, tool results, server names) safe to put on a terminal.

Textual passes widget text through `Content`, which strips only BEL, BS, VT, FF and CR: an ESC inside model
output reaches the terminal as a live escape sequence (a title change, a hyperlink, a clipboard write, a
cursor move that corrupts the screen). Everything the app shows from outside goes through `clean` first,
and streamed text through a `StreamCleaner`, which holds back an escape sequence cut in half by a delta.

Whole sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-character escapes) are removed rather than only their
ESC, so the user does not see `]2;PWNED` litter; what remains of C0 (except newline and tab), DEL, C1 and the
bidirectional overrides that can make text read differently from what it is ("Trojan Source") is dropped.
"""

from __future__ import annotations

import re

_MAY_HAVE_SEQUENCE = re.compile("[\x1b\x90-\x9f]")

# A complete escape sequence, in its 7-bit or 8-bit (C1) form.
_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]               # CSI ... final byte
  | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)  # OSC/DCS/SOS/PM/APC strings
  | \x1b[\x20-\x2f]*[\x30-\x7e]                                        # other escapes (ESC 7, ESC ( B, ...)
    """,
    re.VERBOSE,
)

# What is left to drop once sequences are gone: C0 except \t and \n, DEL, C1, bidi embedding/override/isolate
# controls, and the invisible line/paragraph separators some terminals treat as newlines.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200e\u200f\u061c]")

# The tail of a chunk that may be the start of a sequence whose end is still to come.
_OPEN_SEQUENCE = re.compile(
    r"(?:\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*|[\]PX^_][^\x07\x1b\x9c]*|[\x20-\x2f]*)?"
    r"|\x9b[\x30-\x3f]*[\x20-\x2f]*|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*)\Z"
)

#: An unterminated OSC/DCS string longer than this is treated as garbage, not held back any longer.
MAX_HELD = 4096


def clean(text: str) -> str:
    """`text` without escape sequences or control characters; newlines and tabs survive.

    CRLF becomes LF and a lone CR becomes LF, so Windows line endings and progress-bar style output from a
    tool still read as lines instead of being glued together.
    """
    if not text:
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _MAY_HAVE_SEQUENCE.search(text):
        text = _SEQUENCE.sub("", text)
    return _CONTROL.sub("", text)


class StreamCleaner:
    """`clean` for text that arrives in pieces: an escape sequence split across pieces is still removed."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, fragment: str) -> str:
        """The cleaned part of everything fed so far that can be shown now."""
        text = self._held + fragment
        self._held = ""
        if text.endswith("\r"):  # a CRLF may be split between fragments
            text, self._held = text[:-1], "\r"
        match = _OPEN_SEQUENCE.search(text)
        if match and match.start() < len(text) and len(text) - match.start() <= MAX_HELD:
            self._held = text[match.start() :] + self._held
            text = text[: match.start()]
        return clean(text)

    def flush(self) -> str:
        """Whatever is still held (an unterminated sequence is dropped by `clean`)."""
        held, self._held = self._held, ""
        return clean(held)
