"""System variables: placeholders the template fills itself, such as today's date or the user's name.

They are never form fields. The clock is a parameter everywhere it is read, so tests and snapshot images are
the same on every day they run. The user's facts (`UserContext`) are a parameter too: the app builds one from
the config (`[user]`) and the environment, and reads the clipboard once when a form opens (reading it is a
subprocess or a terminal query, too slow for every key press of the preview); a script gets the
environment's.
"""

from __future__ import annotations

import contextlib
import getpass
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: A source of "now"; it should return an aware datetime in the user's local time zone.
Clock = Callable[[], datetime]

CLOCK_VARIABLES: tuple[str, ...] = (
    "CURRENT_DATE",
    "CURRENT_DATETIME",
    "CURRENT_TIME",
    "CURRENT_TIMEZONE",
    "CURRENT_WEEKDAY",
)
USER_VARIABLES: tuple[str, ...] = ("CLIPBOARD", "USER_NAME", "USER_LANGUAGE", "USER_LOCATION")
SYSTEM_VARIABLES: tuple[str, ...] = CLOCK_VARIABLES + USER_VARIABLES

#: What USER_LOCATION says when the user set no location (Open WebUI says the same without a location).
UNKNOWN_LOCATION = "Unknown"

# English names on purpose: the locale of the machine says nothing about the language of the prompt.
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ZONEINFO_MARK = "zoneinfo/"


@dataclass(frozen=True, slots=True)
class UserContext:
    """The user's facts for USER_NAME, USER_LANGUAGE, USER_LOCATION and CLIPBOARD.

    `clipboard` is None when it could not be read; `clipboard_problem` then says why, for the form to show.
    """

    name: str = ""
    language: str = ""
    location: str = ""
    clipboard: str | None = None
    clipboard_problem: str = "the clipboard was not read"

    @classmethod
    def from_environment(
        cls, settings: Mapping[str, object] | None = None, environ: Mapping[str, str] | None = None
    ) -> UserContext:
        """From the config's `[user]` table (`settings`) first, then the environment; location only if set."""
        settings = settings or {}
        environ = os.environ if environ is None else environ
        name = str(settings.get("name") or "") or _login_name(environ)
        language = str(settings.get("language") or "") or language_from_locale(environ)
        return cls(name=name, language=language, location=str(settings.get("location") or ""))

    def with_clipboard(self, text: str | None, problem: str = "") -> UserContext:
        return UserContext(self.name, self.language, self.location, text, problem)


def language_from_locale(environ: Mapping[str, str]) -> str:
    """The locale's language as a BCP 47 tag (`de_DE.UTF-8` -> `de-DE`), as a browser reports it; "" if none."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:
            tag = value.split(".", 1)[0].split("@", 1)[0]
            if tag in ("C", "POSIX"):
                return ""
            return tag.replace("_", "-")
    return ""


def _login_name(environ: Mapping[str, str]) -> str:
    for variable in ("LOGNAME", "USER", "USERNAME"):
        if environ.get(variable):
            return environ[variable]
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no passwd entry (some containers)
        return ""


def local_zone_name(environ: Mapping[str, str] | None = None, localtime: Path = Path("/etc/localtime")) -> str:
    """The local IANA zone name (Europe/Berlin), from TZ or the /etc/localtime link; "" when unknown."""
    environ = os.environ if environ is None else environ
    candidates = [environ.get("TZ", "").lstrip(":")]
    try:
        target = str(localtime.resolve()) if localtime.is_symlink() else ""
    except OSError:
        target = ""
    if _ZONEINFO_MARK in target:
        candidates.append(target.rsplit(_ZONEINFO_MARK, 1)[1])
    timezone_file = localtime.parent / "timezone"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        candidates.append(timezone_file.read_text(encoding="utf-8").strip())
    for name in candidates:
        if _is_zone(name):
            return name
    return ""


def _is_zone(name: str) -> bool:
    if not name or name.startswith("/") or ".." in name:
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def local_now() -> datetime:
    """The default clock: the local wall time, in the local IANA zone when it is known (else with its offset)."""
    zone = local_zone_name()
    if zone:
        return datetime.now(ZoneInfo(zone))
    return datetime.now().astimezone()


def is_system_variable(name: str) -> bool:
    return name in SYSTEM_VARIABLES


def system_values(now: datetime) -> dict[str, str]:
    """The text each clock variable stands for at `now`."""
    return {
        "CURRENT_DATE": now.strftime("%Y-%m-%d"),
        "CURRENT_DATETIME": now.strftime("%Y-%m-%d %H:%M:%S"),
        "CURRENT_TIME": now.strftime("%H:%M:%S"),
        "CURRENT_TIMEZONE": _zone_name(now),
        "CURRENT_WEEKDAY": _WEEKDAYS[now.weekday()],
    }


def user_values(user: UserContext) -> dict[str, str]:
    """The text each user variable stands for; an unreadable clipboard is empty (the form says why)."""
    return {
        "CLIPBOARD": user.clipboard or "",
        "USER_NAME": user.name,
        "USER_LANGUAGE": user.language,
        "USER_LOCATION": user.location or UNKNOWN_LOCATION,
    }


def _zone_name(now: datetime) -> str:
    """The IANA name (Europe/Berlin) when the time carries one; else the abbreviation (CET) or the offset
    (UTC+05:30); "" for a naive time."""
    offset = now.utcoffset()
    if offset is None:
        return ""
    if isinstance(now.tzinfo, ZoneInfo) and now.tzinfo.key:
        return now.tzinfo.key
    name = now.tzname() or ""
    if name and not name.startswith(("UTC", "GMT", "+", "-")):
        return name
    if offset == timedelta(0):
        return "UTC"
    sign = "+" if offset > timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
