"""Rendering typed placeholders, `unfilled`, and the value checks the form and scripts share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from visindigo.engine import Prompt
from visindigo.engine.templates import TemplateField, system_values


def test_typed_placeholders_are_replaced_whole() -> None:
    prompt = Prompt("t", 'Review at {{level | select:options=["High","Low"]}} level: {{code | textarea:required}}')
    assert prompt.render({"level": "High", "code": "x = 1"}).content == "Review at High level: x = 1"


def test_defaults_fill_typed_placeholders_but_a_given_value_wins() -> None:
    prompt = Prompt("t", '{{n | number:default=3}} {{s | text:default="dflt"}}')
    assert prompt.render().content == "3 dflt"
    assert prompt.render({"n": "7", "s": ""}).content == "7 "


def test_checkbox_values_are_written_as_true_or_false() -> None:
    prompt = Prompt("t", "strict={{strict | checkbox}} loose={{loose | checkbox:default=yes}}")
    assert prompt.render({"strict": "on"}).content == "strict=true loose=true"
    assert prompt.render({"strict": False, "loose": "0"}).content == "strict=false loose=false"


def test_unfilled_lists_what_would_stay_as_written() -> None:
    prompt = Prompt("t", '{{a}} {{b | text:default="x"}} {{c | number}} {{CURRENT_DATE}} {{a}}')
    assert prompt.unfilled() == ["a", "c"]
    assert prompt.unfilled({"c": "1"}) == ["a"]


def test_system_values_format() -> None:
    now = datetime(2026, 1, 5, 23, 4, 9, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert system_values(now) == {
        "CURRENT_DATE": "2026-01-05",
        "CURRENT_DATETIME": "2026-01-05 23:04:09",
        "CURRENT_TIME": "23:04:09",
        "CURRENT_TIMEZONE": "UTC+05:30",
        "CURRENT_WEEKDAY": "Monday",
    }
    assert system_values(datetime(2026, 1, 5, tzinfo=UTC))["CURRENT_TIMEZONE"] == "UTC"
    assert system_values(datetime(2026, 1, 5))["CURRENT_TIMEZONE"] == ""


@pytest.mark.parametrize(
    ("spec", "value", "error"),
    [
        (TemplateField("x", required=True), "  ", "x is required."),
        (TemplateField("x", label="Your name", required=True), "", "Your name is required."),
        (TemplateField("x"), "", None),
        (TemplateField("x", "textarea", required=True), "\n\n", "x is required."),
        (TemplateField("x", "number", min=1, max=10, step=0.5), "abc", "x: enter a number."),
        (TemplateField("x", "number", min=1, max=10, step=0.5), "0", "x: must be at least 1."),
        (TemplateField("x", "number", min=1, max=10, step=0.5), "10.5", "x: must be at most 10."),
        (TemplateField("x", "number", min=1, max=10, step=0.5), "2.2", "x: must be a multiple of 0.5 from 1."),
        (TemplateField("x", "number", min=1, max=10, step=0.5), "2.5", None),
        (TemplateField("x", "number", step=0.1), "0.3", None),
        (TemplateField("x", "number"), "inf", "x: enter a finite number."),
        (TemplateField("x", "select", options=("a", "b")), "c", "x: choose one of a, b."),
        (TemplateField("x", "select", options=("a", "b")), "b", None),
        (TemplateField("x", "date"), "2026-02-30", "x: enter a date as YYYY-MM-DD, for example 2026-03-14."),
        (TemplateField("x", "date"), "14.03.2026", "x: enter a date as YYYY-MM-DD, for example 2026-03-14."),
        (TemplateField("x", "date"), "2026-02-28", None),
        (TemplateField("x", "time"), "24:00", "x: enter a time as HH:MM, for example 09:30."),
        (TemplateField("x", "time"), "23:59", None),
        (TemplateField("x", "datetime-local"), "2026-02-28T10:00", None),
        (TemplateField("x", "datetime-local"), "2026-02-28", "x: enter a date and time as YYYY-MM-DD HH:MM."),
        (TemplateField("x", "month"), "2026-13", "x: enter a month as YYYY-MM."),
        (TemplateField("x", "email"), "a@b", "x: enter an e-mail address such as name@example.com."),
        (TemplateField("x", "email"), "a@b.org", None),
        (TemplateField("x", "url"), "example.com", "x: enter a URL such as https://example.com."),
        (TemplateField("x", "url"), "https://example.com/a?b", None),
        (TemplateField("x", "tel"), "call me", "x: enter a phone number (digits, spaces, + - ( ) .)."),
        (TemplateField("x", "color"), "#12345", "x: enter a colour as #rgb or #rrggbb."),
        (TemplateField("x", "color"), "#abc", None),
        (TemplateField("x", "checkbox", required=True), "false", None),
    ],
)
def test_checks(spec: TemplateField, value: str, error: str | None) -> None:
    assert spec.check(value) == error


def test_initial_value_prefers_remembered_then_default() -> None:
    spec = TemplateField("x", default="d")
    assert spec.initial_value() == "d"
    assert spec.initial_value({"x": "last"}) == "last"
    assert TemplateField("x", "checkbox").initial_value() == "false"
    assert TemplateField("x").initial_value({"other": "1"}) == ""


def test_hint_falls_back_to_the_expected_format() -> None:
    assert TemplateField("x", "date").hint == "YYYY-MM-DD"
    assert TemplateField("x", "date", placeholder="when?").hint == "when?"
    assert TemplateField("x").hint == ""


def test_segments_mark_what_stays_as_written() -> None:
    from visindigo.engine.templates.render import Segment

    prompt = Prompt("t", "Hi {{who}}, {{tone | select:options=[\"a\",\"b\"]}} on {{CURRENT_DATE}}{{x | select}}")
    parts = prompt.segments({"who": "Ann"}, clock=lambda: datetime(2026, 1, 5, tzinfo=UTC))
    assert parts == [
        Segment("Hi "),
        Segment("Ann"),
        Segment(", "),
        Segment('{{tone | select:options=["a","b"]}}', "tone"),
        Segment(" on "),
        Segment("2026-01-05"),
        Segment("{{x | select}}"),
    ]
    assert "".join(p.text for p in parts) == prompt.render({"who": "Ann"}, clock=lambda: datetime(2026, 1, 5,
                                                                                              tzinfo=UTC)).content
