"""Message and Role: the value type of spec file 003."""

import json

from visindigo.engine import Image, Message, Role


def test_roles_have_the_spec_values_and_prompt_travels_as_user() -> None:
    assert [r.value for r in (Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL, Role.PROMPT)] == [0, 1, 2, 3, 4]
    assert Role.PROMPT.wire_name == "user"
    assert Role.ASSISTANT.wire_name == "assistant"


def test_a_default_message_is_an_empty_user_message() -> None:
    message = Message()
    assert message.role is Role.USER
    assert message.is_empty()


def test_an_assistant_message_with_only_tool_calls_is_not_empty() -> None:
    calls = '[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]'
    assert not Message(Role.ASSISTANT, "", tool_calls=calls).is_empty()
    assert not Message(Role.USER, "hi").is_empty()


def test_to_json_writes_the_role_as_a_string_and_round_trips() -> None:
    message = Message(
        Role.TOOL,
        '{"ok":true}',
        name="get_time",
        reasoning="",
        tool_call_id="call_AbC",
        images=[Image("image/png", "aGVsbG8=")],
        meta={"duration": 0.5},
    )
    data = message.to_json()
    assert data["role"] == "tool"
    assert json.loads(json.dumps(data)) == data
    assert Message.from_json(data) == message


def test_from_json_falls_back_to_user_for_an_unknown_role() -> None:
    data = {"role": "wizard", "content": "abracadabra"}
    message = Message.from_json(data)
    assert message.role is Role.USER
    assert message.content == "abracadabra"
    assert Message.role_recognised(data) is False
    assert Message.role_recognised({"role": "Assistant"}) is True


def test_from_json_accepts_numeric_roles_and_structured_tool_calls() -> None:
    message = Message.from_json({"role": 2, "content": None, "tool_calls": [{"id": "x"}]})
    assert message.role is Role.ASSISTANT
    assert message.content == ""
    assert json.loads(message.tool_calls) == [{"id": "x"}]
    assert message.parsed_tool_calls() == [{"id": "x"}]


def test_unreadable_tool_calls_parse_as_no_calls() -> None:
    assert Message(Role.ASSISTANT, tool_calls="[not json").parsed_tool_calls() == []


def test_copies_are_independent_values() -> None:
    original = Message(Role.USER, "a", meta={"nested": {"k": 1}})
    duplicate = original.copy()
    duplicate.meta["nested"]["k"] = 2
    duplicate.content = "b"
    assert original.meta == {"nested": {"k": 1}}
    assert original.content == "a"
