"""System variables: placeholders the template fills itself, such as today's date.

They are never form fields. The clock is a parameter everywhere it is read, so tests and snapshot images are
the same on every day they run.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

#: A source of "now"; it should return an aware datetime in the user's local time zone.
Clock = Callable[[], datetime]

SYSTEM_VARIABLES: tuple[str, ...] = (
    "CURRENT_DATE",
    "CURRENT_DATETIME",
    "CURRENT_TIME",
    "CURRENT_TIMEZONE",
    "CURRENT_WEEKDAY",
)

# English names on purpose: the locale of the machine says nothing about the language of the prompt.
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def local_now() -> datetime:
    """The default clock: the local wall time, with its UTC offset."""
    return datetime.now().astimezone()


def is_system_variable(name: str) -> bool:
    return name in SYSTEM_VARIABLES


def system_values(now: datetime) -> dict[str, str]:
    """The text each system variable stands for at `now`."""
    return {
        "CURRENT_DATE": now.strftime("%Y-%m-%d"),
        "CURRENT_DATETIME": now.strftime("%Y-%m-%d %H:%M:%S"),
        "CURRENT_TIME": now.strftime("%H:%M:%S"),
        "CURRENT_TIMEZONE": _zone_name(now),
        "CURRENT_WEEKDAY": _WEEKDAYS[now.weekday()],
    }


def _zone_name(now: datetime) -> str:
    """The zone's abbreviation when it has one (CET), else its offset (UTC+05:30); "" for a naive time."""
    offset = now.utcoffset()
    if offset is None:
        return ""
    name = now.tzname() or ""
    if name and not name.startswith(("UTC", "GMT", "+", "-")):
        return name
    if offset == timedelta(0):
        return "UTC"
    sign = "+" if offset > timedelta(0) else "-"
    minutes = abs(int(offset.total_seconds())) // 60
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"
