"""The app's own log: off unless asked for, then a rotating file in the logs folder that is safe to share.

`--debug` or `VISINDIGO_LOG=debug` writes `visindigo.log` (1 MB, three old files kept): each HTTP request as
method, URL without its query values, the names of its headers (never their values), status and time taken;
warnings; errors with their tracebacks. Message text (what the user and the model wrote) is left out unless
the user asks for it with the second level, `--debug --debug` or `VISINDIGO_LOG=trace`. Whatever a record
says, every API key the config knows is replaced by `***` before it is written (`SecretFilter`), so a
traceback that happens to hold a key still cannot leak it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

LOG_ENV = "VISINDIGO_LOG"
LOG_FILE_NAME = "visindigo.log"
MAX_LOG_BYTES = 1_000_000
BACKUP_COUNT = 3
MASK = "***"

#: Levels a user can name; "trace" is debug plus message text.
LEVELS = {"": 0, "off": 0, "0": 0, "warning": 1, "debug": 2, "1": 2, "trace": 3, "2": 3}

_ROOT = "visindigo"
_text_logging = False


class SecretFilter(logging.Filter):
    """Replaces every registered secret in a record's final text (message, arguments and traceback)."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        text = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        for secret in self.secrets:
            text = text.replace(secret, MASK)
            if record.exc_text:
                record.exc_text = record.exc_text.replace(secret, MASK)
        record.msg, record.args = text, None
        return True


_secrets = SecretFilter()


def level_from(debug_flags: int, environ: dict[str, str] | os._Environ[str] | None = None) -> int:
    """0 off, 1 warnings, 2 debug, 3 debug with message text: the stronger of the flags and VISINDIGO_LOG."""
    environ = os.environ if environ is None else environ
    from_env = LEVELS.get(environ.get(LOG_ENV, "").strip().lower(), 2)
    return max(min(debug_flags, 2) + (1 if debug_flags else 0), from_env)


def register_secrets(values: Iterable[str]) -> None:
    """Secrets (API keys, credential header values) that no log line may contain."""
    _secrets.secrets.update(value for value in values if value and len(value) >= 4)


def mask(text: str) -> str:
    """`text` with every registered secret replaced (for a message that leaves the log too)."""
    for secret in _secrets.secrets:
        text = text.replace(secret, MASK)
    return text


def log_file(logs_dir: Path) -> Path:
    return logs_dir / LOG_FILE_NAME


def configure(level: int, logs_dir: Path) -> Path | None:
    """Start the log at `level` (see `level_from`); returns the file, or None when the log is off.

    Raises OSError when the folder or file cannot be made: the caller says so in one line.
    """
    global _text_logging
    if level <= 0:
        return None
    logs_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = log_file(logs_dir)
    if not path.exists():
        path.touch(mode=0o600)
    import logging.handlers  # only with the log on: most runs never load it

    handler = logging.handlers.RotatingFileHandler(
        path, maxBytes=MAX_LOG_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    handler.addFilter(_secrets)
    root = logging.getLogger(_ROOT)
    for old in [h for h in root.handlers if isinstance(h, logging.FileHandler)]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if level >= 2 else logging.WARNING)
    _text_logging = level >= 3
    root.debug("log started (level %s) by visindigo pid %d", "trace" if level >= 3 else "debug", os.getpid())
    return path


def stop() -> None:
    """Close the file handler (tests, and the end of a CLI command)."""
    global _text_logging
    root = logging.getLogger(_ROOT)
    for handler in [h for h in root.handlers if isinstance(h, logging.FileHandler)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.NOTSET)
    _text_logging = False


def current_file() -> Path | None:
    """The file the log is written to now, or None: shown in the help screen (f1)."""
    for handler in logging.getLogger(_ROOT).handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def log_text(logger: logging.Logger, what: str, text: str) -> None:
    """Message text goes to the log only at the second level (trace)."""
    if _text_logging:
        logger.debug("%s: %r", what, text)


# --- HTTP: what was asked and how long it took, never what was sent ---------------------------------------

_http = logging.getLogger("visindigo.http")


def safe_url(url: Any) -> str:
    """The URL with its query values masked (some APIs take the key as `?key=`)."""
    text = str(url)
    base, _, query = text.partition("?")
    if not query:
        return base
    names = [part.split("=", 1)[0] for part in query.split("&") if part]
    return base + "?" + "&".join(f"{name}={MASK}" for name in names)


async def _on_request(request: Any) -> None:
    request.extensions["visindigo_started"] = time.monotonic()
    if _http.isEnabledFor(logging.DEBUG):
        names = ",".join(sorted(request.headers.keys()))
        _http.debug("-> %s %s headers=[%s]", request.method, safe_url(request.url), names)


async def _on_response(response: Any) -> None:
    if _http.isEnabledFor(logging.DEBUG):
        started = response.request.extensions.get("visindigo_started")
        took = f"{(time.monotonic() - started) * 1000:.0f} ms" if started else "?"
        _http.debug(
            "<- %s %s %s (headers in %s)",
            response.status_code,
            response.request.method,
            safe_url(response.request.url),
            took,
        )


def http_event_hooks() -> dict[str, list[Any]]:
    """Event hooks for an `httpx.AsyncClient`: one line per request and per response head."""
    return {"request": [_on_request], "response": [_on_response]}
