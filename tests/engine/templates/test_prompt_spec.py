"""The spec's behaviour of `Prompt` (file 002) still holds with the template language added."""

from __future__ import annotations

from datetime import UTC, datetime

from visindigo.engine import Prompt, Role


def fixed_clock() -> datetime:
    return datetime(2026, 3, 14, 9, 30, 5, tzinfo=UTC)


def test_variables_are_unique_and_in_order_of_first_appearance() -> None:
    prompt = Prompt("t", "Translate {{text}} into {{language}}, keep {{ text }} and {{tone}} {{language}}")
    assert prompt.variables() == ["text", "language", "tone"]


def test_render_makes_a_prompt_message_named_after_the_template() -> None:
    prompt = Prompt("translate", "把下面这段文字翻译成{{language}}，只输出译文：\n{{text}}")
    message = prompt.render({"language": "English", "text": "你好"})
    assert message.role is Role.PROMPT
    assert message.name == "translate"
    assert message.content == "把下面这段文字翻译成English，只输出译文：\n你好"


def test_missing_placeholders_stay_exactly_as_written() -> None:
    prompt = Prompt("t", "A {{ a }} B {{b}} C {{  c\n}}")
    assert prompt.render({"b": "2"}).content == "A {{ a }} B 2 C {{  c\n}}"
    assert prompt.render().content == "A {{ a }} B {{b}} C {{  c\n}}"


def test_values_that_look_like_placeholders_are_not_filled_again() -> None:
    prompt = Prompt("t", "{{a}} {{b}}")
    assert prompt.render({"a": "{{b}}", "b": "x"}).content == "{{b}} x"


def test_names_of_any_script_with_dots_and_dashes() -> None:
    prompt = Prompt("t", "{{语言}} {{user.name}} {{first-name}} {{1st}} {{}}")
    assert prompt.variables() == ["语言", "user.name", "first-name"]
    assert prompt.render({"语言": "中文", "user.name": "A", "first-name": "B"}).content == "中文 A B {{1st}} {{}}"


def test_is_valid_needs_name_and_content() -> None:
    assert Prompt("n", "c").is_valid()
    assert not Prompt("", "c").is_valid()
    assert not Prompt("n", "").is_valid()


def test_json_round_trip_keeps_description_and_tags() -> None:
    prompt = Prompt("n", "{{x | number:min=1}}", description="d", tags=("a", "b"))
    assert Prompt.from_json(prompt.to_json()) == prompt
    assert Prompt.from_json({"name": "n", "content": "c", "tags": "not-a-list"}).tags == ()


def test_system_variables_are_variables_but_not_fields_and_fill_themselves() -> None:
    prompt = Prompt("t", "{{CURRENT_DATE}} {{CURRENT_DATETIME}} {{CURRENT_WEEKDAY}} {{CURRENT_TIME}} {{who}}")
    assert prompt.variables() == ["CURRENT_DATE", "CURRENT_DATETIME", "CURRENT_WEEKDAY", "CURRENT_TIME", "who"]
    assert [f.name for f in prompt.fields()] == ["who"]
    text = prompt.render({}, clock=fixed_clock).content
    assert text == "2026-03-14 2026-03-14 09:30:05 Saturday 09:30:05 {{who}}"


def test_a_given_value_overrides_a_system_variable() -> None:
    prompt = Prompt("t", "Today is {{CURRENT_WEEKDAY}}.")
    assert prompt.render({"CURRENT_WEEKDAY": "a holiday"}, clock=fixed_clock).content == "Today is a holiday."


def test_the_clock_is_not_read_when_no_system_variable_is_used() -> None:
    def exploding_clock() -> datetime:
        raise AssertionError("clock read")

    assert Prompt("t", "{{x}}").render({"x": "1"}, clock=exploding_clock).content == "1"


def test_dialog_append_prompt_uses_typed_defaults() -> None:
    from visindigo.engine import Center

    center = Center()
    center.add_prompt(Prompt("p", 'Tone: {{tone | select:options=["calm","loud"]:default="calm"}}, {{x}}'))
    dialog = center.create_dialog()
    dialog.append_prompt("p", {"x": "1"})
    assert dialog.messages[-1].content == "Tone: calm, 1"
    assert dialog.messages[-1].role is Role.PROMPT
