"""A dialog's generation parameters: checked, stored with the dialog, exported, copied to branches."""

from __future__ import annotations

from pathlib import Path

import pytest

from visindigo.engine import Center, Dialog, Role
from visindigo.engine.parameters import ParameterError, clean_parameters, is_forced_tool_choice, summary


def test_only_what_is_set_is_kept_in_its_wire_type() -> None:
    cleaned = clean_parameters(
        {"max_tokens": "256", "temperature": "0.7", "top_p": None, "seed": 3.0, "stop": "END", "tool_choice": ""}
    )
    assert cleaned == {"max_tokens": 256, "temperature": 0.7, "seed": 3, "stop": ["END"]}
    assert clean_parameters({"unknown": 1, "stop": []}) == {}


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"max_tokens": 0}, "max_tokens must be a whole number of 1 or more"),
        ({"max_tokens": "lots"}, "max_tokens must be a number"),
        ({"temperature": 2.5}, "temperature must be between 0 and 2"),
        ({"top_p": -0.1}, "top_p must be between 0 and 1"),
        ({"seed": 1.5}, "seed must be a whole number"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "at most 4"),
        ({"reasoning_effort": "extreme"}, "reasoning_effort must be one of minimal, low, medium, high"),
        ({"temperature": True}, "temperature must be a number"),
    ],
)
def test_a_bad_value_is_refused_naming_the_parameter(values: dict[str, object], words: str) -> None:
    with pytest.raises(ParameterError, match=words):
        clean_parameters(values)


def test_forced_tool_choices_in_every_shape() -> None:
    assert is_forced_tool_choice("required") and is_forced_tool_choice("get_time")
    assert is_forced_tool_choice({"type": "function", "function": {"name": "x"}}) and is_forced_tool_choice(
        {"type": "any"}
    )
    assert not any(is_forced_tool_choice(v) for v in ("auto", "none", {"type": "auto"}, None, ""))


def test_the_summary_is_short() -> None:
    assert summary({"max_tokens": 256, "temperature": 0.7, "stop": ["a", "b"]}) == "max 256 · t 0.7 · stop 2"
    assert summary({}) == ""


def test_a_bad_assignment_changes_nothing() -> None:
    dialog = Dialog()
    dialog.parameters = {"seed": 1}
    with pytest.raises(ParameterError):
        dialog.parameters = {"seed": 2, "temperature": 9}
    assert dialog.parameters == {"seed": 1}


def test_parameters_travel_with_json_export_and_branches() -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.parameters = {"max_tokens": 64, "tool_choice": "get_time"}
    dialog.append_message(Role.USER, "q")
    document = dialog.to_json()
    assert document["parameters"] == {"max_tokens": 64, "tool_choice": "get_time"}
    copy = Dialog()
    copy.from_json(document)
    assert copy.parameters == dialog.parameters
    assert center.regenerate(dialog).parameters == dialog.parameters
    broken = Dialog()
    broken.from_json({**document, "parameters": {"max_tokens": -5, "seed": 9}})  # a bad value costs only itself
    assert broken.parameters == {"seed": 9}


def test_parameters_are_stored_and_survive_a_restart(tmp_path: Path) -> None:
    home = tmp_path / "home"
    center = Center.open(home)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "q")
    dialog.parameters = {"temperature": 0.2, "stop": ["END"]}
    center.close()
    again = Center.open(home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None and loaded.parameters == {"temperature": 0.2, "stop": ["END"]}
    finally:
        again.close()
