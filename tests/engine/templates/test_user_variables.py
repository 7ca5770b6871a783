"""Open WebUI's system variables: CLIPBOARD, USER_NAME, USER_LANGUAGE, USER_LOCATION and an IANA time zone."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from visindigo.engine import Prompt
from visindigo.engine.templates.system import (
    UNKNOWN_LOCATION,
    UserContext,
    language_from_locale,
    local_zone_name,
    system_values,
)

BERLIN_NOON = datetime(2026, 3, 14, 12, 0, tzinfo=ZoneInfo("Europe/Berlin"))


def test_user_variables_are_filled_not_asked_for() -> None:
    prompt = Prompt("t", "{{USER_NAME}} ({{USER_LANGUAGE}}, {{USER_LOCATION}}) pasted: {{CLIPBOARD}} {{topic}}")
    assert [f.name for f in prompt.fields()] == ["topic"]
    user = UserContext(name="Ada", language="en-GB", location="Berlin").with_clipboard("SELECT 1")
    assert prompt.fill({"topic": "x"}, user=user) == "Ada (en-GB, Berlin) pasted: SELECT 1 x"


def test_an_unset_location_and_an_unreadable_clipboard() -> None:
    user = UserContext(name="Ada").with_clipboard(None, "no clipboard tool")
    assert Prompt("t", "[{{CLIPBOARD}}] {{USER_LOCATION}}").fill(user=user) == f"[] {UNKNOWN_LOCATION}"
    assert user.clipboard_problem == "no clipboard tool"


def test_the_config_wins_over_the_environment() -> None:
    environ = {"LOGNAME": "ada", "LANG": "de_DE.UTF-8"}
    assert UserContext.from_environment({}, environ) == UserContext("ada", "de-DE", "")
    configured = UserContext.from_environment({"name": "Ada L.", "language": "fr", "location": "Paris"}, environ)
    assert (configured.name, configured.language, configured.location) == ("Ada L.", "fr", "Paris")


def test_language_comes_from_the_locale_as_a_bcp47_tag() -> None:
    assert language_from_locale({"LANG": "pt_BR.UTF-8"}) == "pt-BR"
    assert language_from_locale({"LC_ALL": "sr_RS@latin", "LANG": "en_US"}) == "sr-RS"
    assert language_from_locale({"LANG": "C.UTF-8"}) == ""
    assert language_from_locale({}) == ""


def test_current_timezone_is_the_iana_name() -> None:
    assert system_values(BERLIN_NOON)["CURRENT_TIMEZONE"] == "Europe/Berlin"
    assert Prompt("t", "{{CURRENT_TIMEZONE}}").fill(clock=lambda: BERLIN_NOON) == "Europe/Berlin"


def test_the_local_zone_name_from_tz_or_the_localtime_link(tmp_path: Path) -> None:
    assert local_zone_name({"TZ": "America/New_York"}, tmp_path / "none") == "America/New_York"
    link = tmp_path / "localtime"
    link.symlink_to("/usr/share/zoneinfo/Asia/Tokyo")
    assert local_zone_name({}, link) == "Asia/Tokyo"
    assert local_zone_name({"TZ": "../../etc/passwd"}, tmp_path / "none") == ""
    (tmp_path / "timezone").write_text("Europe/Lisbon\n")
    assert local_zone_name({}, tmp_path / "none") == "Europe/Lisbon"
