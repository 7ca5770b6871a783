"""Typed placeholders in Open WebUI's syntax: what parses into which field, and what is left as written."""

from __future__ import annotations

import pytest

from visindigo.engine import Prompt
from visindigo.engine.templates import TemplateField, scan


def only_field(text: str) -> TemplateField:
    fields = Prompt("t", text).fields()
    assert len(fields) == 1, fields
    return fields[0]


def test_plain_placeholder_is_an_optional_text_field() -> None:
    assert only_field("{{topic}}") == TemplateField("topic")


def test_text_with_placeholder_and_required_flag() -> None:
    spec = only_field('{{name | text:placeholder="Enter name":required}}')
    assert (spec.type, spec.placeholder, spec.required, spec.default) == ("text", "Enter name", True, None)


def test_every_type_and_its_properties() -> None:
    prompt = Prompt(
        "t",
        '{{body | textarea:label="Body":description="What to review"}}\n'
        '{{level | select:options=["High","Medium","Low"]:default="Medium"}}\n'
        "{{count | number:min=1:max=10:step=0.5:default=2}}\n"
        '{{strict | checkbox:label="Be strict":default=true}}\n'
        "{{due | date:required}}\n"
        "{{volume | range:min=0:max=11}}\n"
        "{{at | time}} {{when | datetime-local}} {{mail | email}} {{site | url}} {{phone | tel}} {{ink | color}}",
    )
    fields = {f.name: f for f in prompt.fields()}
    assert list(fields) == ["body", "level", "count", "strict", "due", "volume", "at", "when", "mail", "site",
                            "phone", "ink"]
    assert (fields["body"].type, fields["body"].label, fields["body"].description) == ("textarea", "Body",
                                                                                       "What to review")
    assert fields["level"].options == ("High", "Medium", "Low") and fields["level"].default == "Medium"
    assert (fields["count"].min, fields["count"].max, fields["count"].step, fields["count"].default) == (
        1.0, 10.0, 0.5, "2")
    assert fields["strict"].type == "checkbox" and fields["strict"].default == "true"
    assert fields["strict"].title == "Be strict"
    assert fields["due"].type == "date" and fields["due"].required
    assert fields["volume"].type == "number" and fields["volume"].max == 11
    assert [fields[n].type for n in ("at", "when", "mail", "site", "phone", "ink")] == [
        "time", "datetime-local", "email", "url", "tel", "color"]


def test_quoted_values_may_hold_colons_closing_braces_and_escapes() -> None:
    spec = only_field(r"""{{u | text:placeholder="https://x.org:8080/}}":default='it\'s "fine"\n2'}}""")
    assert spec.placeholder == "https://x.org:8080/}}"
    assert spec.default == 'it\'s "fine"\n2'


def test_options_accept_single_quotes_bare_items_and_a_trailing_comma() -> None:
    spec = only_field("{{c | select:options=['a, b', c , \"d\",]}}")
    assert spec.options == ("a, b", "c", "d")


def test_spaces_and_newlines_around_the_parts_are_allowed() -> None:
    spec = only_field("{{ n  |  number : min = 1 :\n max = 3 }}")
    assert (spec.type, spec.min, spec.max) == ("number", 1.0, 3.0)


def test_unknown_type_reads_as_textarea_and_unknown_properties_are_kept() -> None:
    """Open WebUI's form falls back to a textarea for a type it does not know; so does ours."""
    spec = only_field('{{x | map:zoom=3:color="red"}}')
    assert spec.type == "textarea"
    assert spec.extra == (("zoom", "3"), ("color", "red"))


def test_required_can_be_written_as_a_value() -> None:
    assert only_field("{{x | text:required=false}}").required is False
    assert only_field("{{x | text:required=true}}").required is True


def test_first_typed_occurrence_describes_a_repeated_name() -> None:
    prompt = Prompt("t", "{{x}} then {{x | number:min=2}} then {{x | text}}")
    assert prompt.fields() == [TemplateField("x", "number", min=2.0)]
    assert prompt.render({"x": "5"}).content == "5 then 5 then 5"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{{x | select}}", "a select needs options"),
        ("{{x | select:options=[]}}", "a select needs options"),
        ('{{x | text:placeholder="never closed}}', "never closed"),
        ("{{x | select:options=[\"a\"}}", "never closed"),
        ("{{x | }}", "a type"),
        ("{{x | number:min=abc}}", "'min' must be a number"),
        ("{{x | number:min=5:max=1}}", "'min' is greater than 'max'"),
        ("{{x | number:step=0}}", "'step' must be greater than 0"),
        ("{{x | text:label}}", "'label' needs a value"),
        ("{{x | text:label=[1]}}", "'label' must be text"),
        ("{{x | text:options=\"a\"}}", "'options' must be a list"),
        ("{{x | text placeholder}}", "unexpected 'p'"),
        ("{{x | text:=1}}", "a property name must follow"),
        ("{{x | text:default=}}", "a value must follow"),
        ("{{x | select:options=[[1]]}}", "nested"),
        ('{{x | select:options=["a","b"]:default="c"}}', "the default 'c' is not one of the options"),
    ],
)
def test_malformed_placeholders_are_left_as_written_and_reported(text: str, reason: str) -> None:
    prompt = Prompt("t", f"before {text} after")
    assert prompt.fields() == []
    assert prompt.variables() == []
    assert prompt.render({"x": "FILLED"}).content == f"before {text} after"
    problems = prompt.problems()
    assert len(problems) == 1
    assert reason in problems[0].message
    assert problems[0].line == 1
    assert str(problems[0]).startswith("line 1: {{x |")


def test_a_malformed_placeholder_does_not_hide_the_ones_after_it() -> None:
    prompt = Prompt("t", "{{a | select}}\n{{b | number:max=3}} {{c}}")
    assert [f.name for f in prompt.fields()] == ["b", "c"]
    assert prompt.problems()[0].line == 1


def test_problem_lines_count_from_one() -> None:
    assert Prompt("t", "one\ntwo\n{{x | bad:min=}}").problems()[0].line == 3


def test_things_that_are_not_placeholders_at_all() -> None:
    text = "{{ }} {{9x}} {x} {{a b}} {{{{ a }} {{a}x}} }}{{"
    prompt = Prompt("t", text)
    assert prompt.problems() == []
    assert prompt.variables() == ["a"]


def test_a_spec_that_never_closes_within_the_limit_is_malformed() -> None:
    text = "{{x | text" + ":a=1" * 2000 + "}}"
    result = scan(text)
    assert result.placeholders == ()
    assert "no closing" in result.problems[0].message


def test_to_placeholder_writes_text_that_parses_back() -> None:
    spec = TemplateField(
        "x", "select", label='Say "hi"', description="d:e", placeholder="p}}", default="b", required=True,
        options=("a", "b"), extra=(("k", "v"),),
    )
    assert only_field(spec.to_placeholder()) == spec


def test_the_type_prefix_form_reads_as_the_type_it_names() -> None:
    """Open WebUI also accepts `type=` as the first property: `{{level | type=select:options=[...]}}`."""
    spec = only_field('{{level | type=select:options=["a","b"]:required}}')
    assert (spec.type, spec.options, spec.required) == ("select", ("a", "b"), True)
    assert only_field('{{n | type="number":min=1}}').type == "number"
    assert only_field("{{x | type=map}}").type == "textarea"


def test_a_type_prefix_without_a_type_is_malformed() -> None:
    result = scan("{{level | type=[1]}}")
    assert result.placeholders == () and "'type=' must name a type" in result.problems[0].message
