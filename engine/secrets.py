"""Keys and other credentials: refused when they cannot be sent, and kept out of every message in any form.

A key with a line break or another control character cannot go into an HTTP header; sent anyway, httpx
answers "Illegal header value b'Bearer sk-…\\n…'" — the key again, escaped, so a plain search for it misses.
So a bad key is refused where it is read (naming the file or variable, never the key), and `redact` looks for a
secret in the forms it is echoed in: as is, repr-escaped, percent-encoded, JSON-escaped and base64 (also inside
"user:key", as HTTP Basic auth sends it).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
from collections.abc import Callable

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")

#: The fewest characters of a key that count as a piece of it when a server echoes a shortened key.
PIECE = 8

_KEYLIKE = re.compile(r"[A-Za-z0-9_\-]{8,}")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{12,}={0,2}")
_PERCENT_RUN = re.compile(r"\S*%[0-9A-Fa-f]{2}\S*")
_ESCAPED_RUN = re.compile(r"\S*\\[xuUnrt0]\S*")

REDACTED = "[redacted]"


class InvalidKey(ValueError):
    """A key that cannot be used as it is; the message names where it came from, never the key."""


def key_problem(key: str) -> str | None:
    """Why `key` cannot be sent in a header (a line break, another control character), or None."""
    if _CONTROL.search(key):
        return "holds a line break or another control character (a key is one line of printable characters)"
    return None


def check_key(key: str, where: str) -> str:
    """`key` without surrounding whitespace; raises `InvalidKey` naming `where` when it cannot be sent."""
    key = key.strip()
    problem = key_problem(key)
    if problem is not None:
        raise InvalidKey(f"the API key in {where} {problem}; it is not used")
    return key


def encoded_forms(secret: str) -> set[str]:
    """The ways `secret` appears in error texts besides itself (each at least as long as the secret)."""
    raw = secret.encode("utf-8", "backslashreplace")
    forms = {
        repr(secret)[1:-1],
        repr(raw)[2:-1],
        secret.encode("unicode_escape").decode("ascii"),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret, safe=""),
        urllib.parse.quote(secret),
        base64.b64encode(raw).decode("ascii").rstrip("="),
        base64.urlsafe_b64encode(raw).decode("ascii").rstrip("="),
    }
    forms.discard(secret)
    return {form for form in forms if form}


def redact(text: str, secret: str | None) -> str:
    """`text` with the secret, its encoded forms and any long piece of it replaced by "[redacted]".

    Servers echo keys back in error bodies, sometimes shortened ("Incorrect API key provided: sk-proj-abcd****
    wxyz"), so any run of eight or more key-like characters that is a piece of the key is removed too; a word
    that decodes (percent, backslash escapes, base64) to something holding the key or a piece of it goes whole.
    """
    if not secret or not text:
        return text
    text = text.replace(secret, REDACTED)
    for form in sorted(encoded_forms(secret), key=len, reverse=True):
        text = text.replace(form, REDACTED)
    if len(secret) < PIECE:
        return text
    text = _redact_decoded(text, secret)
    for piece in set(_KEYLIKE.findall(text)):
        if piece in secret or _holds_piece(piece, secret):
            text = text.replace(piece, REDACTED)
    return text


def _redact_decoded(text: str, secret: str) -> str:
    """Replace every word whose decoded form holds the secret or a long piece of it."""

    def check(decode: Callable[[str], str]) -> Callable[[re.Match[str]], str]:
        def replace(match: re.Match[str]) -> str:
            word = match.group()
            decoded = decode(word)
            if decoded and decoded != word and _holds_piece(decoded, secret):
                return REDACTED
            return word

        return replace

    text = _PERCENT_RUN.sub(check(_unquote), text)
    text = _ESCAPED_RUN.sub(check(_unescape), text)
    return _BASE64_RUN.sub(check(_unbase64), text)


def _holds_piece(text: str, secret: str) -> bool:
    """Whether `text` holds the secret or a run of `PIECE` or more of its characters."""
    if secret in text:
        return True
    return any(piece in secret for piece in re.findall(rf"[^\s:'\"]{{{PIECE},}}", text)) or any(
        secret[i : i + PIECE] in text for i in range(0, len(secret) - PIECE + 1)
    )


def _unquote(word: str) -> str:
    return urllib.parse.unquote_plus(word)


def _unescape(word: str) -> str:
    try:
        return word.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return ""


def _unbase64(word: str) -> str:
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            return decoder(word + "=" * (-len(word) % 4)).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            continue
    return ""
