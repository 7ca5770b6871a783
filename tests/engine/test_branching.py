"""The shared branch rules: the regenerate cut and the common prefix."""

from __future__ import annotations

import json

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.branching import answer_cut, common_prefix, keep_answering_model, same_message


def mixed(center: Center) -> Dialog:
    dialog = center.create_dialog()
    calls = json.dumps([{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}])
    for message in (
        Message(Role.USER, "q1"),
        Message(Role.ASSISTANT, "a1"),
        Message(Role.PROMPT, "q2", name="t"),
        Message(Role.ASSISTANT, "", tool_calls=calls),
        Message(Role.TOOL, "r", tool_call_id="c1"),
        Message(Role.ASSISTANT, "a2"),
        Message(Role.USER, "q3"),
    ):
        dialog.append_message(message)
    return dialog


def test_the_cut_for_each_kind_of_message() -> None:
    dialog = mixed(Center())
    assert answer_cut(dialog) == 5  # before the last answer
    assert [answer_cut(dialog, index) for index in range(7)] == [1, 1, 3, 3, 5, 5, 7]
    assert answer_cut(dialog, 99) == 7 and answer_cut(Center().create_dialog(), 0) == 0


def test_common_prefix_and_same_message() -> None:
    a = [Message(Role.USER, "q"), Message(Role.ASSISTANT, "x")]
    b = [Message(Role.USER, "q"), Message(Role.ASSISTANT, "y")]
    assert common_prefix(a, b) == 1 and common_prefix(a, a) == 2 and common_prefix([], a) == 0
    assert same_message(a[0], Message(Role.USER, "q", meta={"ignored": True}))
    assert not same_message(a[0], Message(Role.PROMPT, "q"))


def test_the_dialog_keeps_the_model_that_gave_the_answer_being_replaced() -> None:
    dialog = Center().create_dialog()
    dialog.append_message(Role.USER, "q")
    dialog.append_message(Message(Role.ASSISTANT, "a", meta={"model_id": "qwen"}))
    dialog.model_id = "llama"  # chosen with f2 just before answering again
    keep_answering_model(dialog, 1)
    assert dialog.model_id == "qwen"
    keep_answering_model(dialog, 2)  # nothing replaced there: nothing changes
    assert dialog.model_id == "qwen"
