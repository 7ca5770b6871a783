"""Making untrusted text (model output, tool results, titles, names, error texts) safe to put on a terminal.

One module for the app and the command line alike, used at both boundaries: where text from outside enters
(a title made from a first message, model ids from a model list, server and tool names) and where any text
leaves for a terminal (every widget the app shows it in, every line a CLI command writes).

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
from typing import Any, TextIO

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
# A string (OSC, DCS, ...) may be cut just after the ESC of its `ESC \` terminator: that ESC belongs to it.
_OPEN_SEQUENCE = re.compile(
    r"(?:\x1b(?:\[[\x30-\x3f]*[\x20-\x2f]*|[\]PX^_][^\x07\x1b\x9c]*\x1b?|[\x20-\x2f]*)?"
    r"|\x9b[\x30-\x3f]*[\x20-\x2f]*|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*\x1b?)\Z"
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


#: How much of a title or name is shown on one line (the tree, notices, the status line, `visindigo list`).
DISPLAY_LIMIT = 80

# Characters that a terminal would act on if they reached it raw; JSON leaves them as they are with
# ensure_ascii=False, so an export written to a terminal escapes them (still the same JSON value).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200e\u200f\u061c]")


def clean_line(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """`clean(text)` as one line: whitespace (newlines too) collapsed, and cut to `limit` characters with "…".

    For names and titles shown inside a sentence or a row, where a newline or a megabyte would break the layout.
    """
    text = " ".join(clean(str(text)[: limit * 8 + 64]).split())
    return cut(text, limit)


def cut(text: str, limit: int) -> str:
    """At most `limit` characters; a longer text ends in "…"."""
    if limit <= 0 or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def escape_json_for_terminal(text: str) -> str:
    """JSON text with DEL, C1 and bidi controls written as `\\uXXXX`: the same value, nothing a terminal obeys.

    Valid because JSON's structure is ASCII, so every such character is inside a string (C0 is escaped by
    `json.dumps` already).
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class TerminalWriter:
    """A text stream that cleans everything written through it: the command line's stdout and stderr.

    Each write is cleaned on its own: a sequence split between two writes loses its ESC and its terminator, so
    what is left is inert text.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(clean(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def raw(self) -> TextIO:
        """The stream itself, for text of our own that needs a carriage return (a progress line)."""
        return self._stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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
