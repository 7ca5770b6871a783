"""Dialog (spec file 001), everything except run(): identity, lookups, messages, streaming API, copy, JSON."""

import uuid
from typing import Any

from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    DialogChanged,
    Event,
    MCPServer,
    Message,
    MessageAppended,
    MessagesTruncated,
    Prompt,
    Role,
    Skill,
    StreamBegan,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
)
from visindigo.engine.commands import command


def recorder(dialog: Dialog) -> list[Event]:
    events: list[Event] = []
    dialog.subscribe(events.append)
    return events


@command()
def lookup(term: str) -> str:
    """Look a term up (dialog version)."""
    return f"dialog:{term}"


@command(names=["lookup"])
def global_lookup(term: str) -> str:
    """Look a term up (center version)."""
    return f"center:{term}"


@command()
def shout(text: str) -> str:
    """Upper-case."""
    return text.upper()


def test_a_dialog_gets_a_fixed_uuid_at_construction() -> None:
    dialog = Dialog()
    assert uuid.UUID(dialog.id)
    dialog.append_message(Role.USER, "x")
    dialog.provider_id = "p"
    assert dialog.id == dialog.id and Dialog().id != dialog.id


def test_defaults_follow_the_spec() -> None:
    dialog = Dialog()
    assert dialog.branch_from_id == ""
    assert dialog.provider_id == "" and dialog.model_id == ""
    assert dialog.capability_requirement == Capability.TEXT
    assert dialog.last_message == Message() and dialog.last_message.is_empty()
    assert dialog.find_last_assistant_message() == -1
    assert not dialog.is_streaming


def test_functions_resolve_dialog_first_then_center_and_ids_are_dialog_only() -> None:
    center = Center()
    center.add_function(global_lookup).add_function(shout)
    dialog = center.create_dialog()
    assert dialog.get_function("lookup") is global_lookup
    dialog.add_function(lookup)
    assert dialog.get_function("lookup") is lookup
    assert dialog.get_function("shout") is shout
    assert dialog.function_ids == ["lookup"]
    assert {f.id: f for f in dialog.effective_functions()} == {"lookup": lookup, "shout": shout}
    dialog.remove_function("lookup")
    assert dialog.get_function("lookup") is global_lookup
    assert dialog.get_function("nothing") is None
    dialog.add_function(None)
    assert dialog.function_ids == []


def test_adding_a_function_with_an_existing_id_replaces_it() -> None:
    dialog = Dialog()
    dialog.add_function(global_lookup).add_function(lookup)
    assert dialog.function_ids == ["lookup"]
    assert dialog.get_function("lookup") is lookup


def test_skills_servers_and_prompts_override_the_center_by_name() -> None:
    center = Center()
    center.add_skill(Skill("tone", "Be formal.")).add_skill(Skill("lang", "Answer in English."))
    center.add_mcp(MCPServer("time", command="center-time"))
    center.add_prompt(Prompt("greet", "Hello from the center"))
    dialog = center.create_dialog()
    dialog.add_skill(Skill("tone", "Be casual."))
    dialog.add_mcp(MCPServer("time", command="dialog-time"))
    dialog.add_prompt(Prompt("greet", "Hello from the dialog"))
    assert [s.content for s in dialog.effective_skills()] == ["Be casual.", "Answer in English."]
    assert [s.command for s in dialog.effective_mcp_servers()] == ["dialog-time"]
    assert dialog.get_prompt("greet") is not None
    assert dialog.get_prompt("greet").content == "Hello from the dialog"  # type: ignore[union-attr]
    assert [s.name for s in dialog.skills] == ["tone"]
    dialog.remove_skill("tone").remove_mcp("time").remove_prompt("greet")
    assert [s.content for s in dialog.effective_skills()] == ["Be formal.", "Answer in English."]
    assert [s.command for s in dialog.effective_mcp_servers()] == ["center-time"]
    assert dialog.get_prompt("greet").content == "Hello from the center"  # type: ignore[union-attr]


def test_both_append_forms_emit_message_appended_with_only_the_index() -> None:
    dialog = Dialog()
    events = recorder(dialog)
    dialog.append_message(Role.SYSTEM, "sys").append_message(Message(Role.USER, "hi", name="me"))
    assert events == [MessageAppended(0), MessageAppended(1)]
    assert [m.role for m in dialog.messages] == [Role.SYSTEM, Role.USER]
    assert dialog.message_count == 2
    assert dialog.last_message.name == "me"


def test_the_dialog_keeps_its_own_copy_of_messages() -> None:
    dialog = Dialog()
    message = Message(Role.USER, "original")
    dialog.append_message(message)
    message.content = "changed outside"
    dialog.messages[0].content = "changed a copy"
    assert dialog.message_at(0).content == "original"


def test_append_prompt_renders_dialog_first_and_ignores_unknown_names() -> None:
    center = Center()
    center.add_prompt(Prompt("translate", "Translate into {{language}}: {{text}}"))
    dialog = center.create_dialog()
    events = recorder(dialog)
    dialog.append_prompt("no-such-template", {"x": "y"})
    assert dialog.message_count == 0 and events == []
    dialog.append_prompt("translate", {"language": "French"})
    rendered = dialog.last_message
    assert rendered.role is Role.PROMPT
    assert rendered.name == "translate"
    assert rendered.content == "Translate into French: {{text}}"
    dialog.add_prompt(Prompt("translate", "Dialog version {{text}}"))
    dialog.append_prompt("translate", {"text": "bonjour"})
    assert dialog.last_message.content == "Dialog version bonjour"


def test_truncate_and_clear_keep_configuration() -> None:
    dialog = Dialog()
    dialog.add_skill(Skill("s", "x"))
    dialog.model_id = "m"
    for i in range(5):
        dialog.append_message(Role.USER if i % 2 == 0 else Role.ASSISTANT, str(i))
    events = recorder(dialog)
    dialog.truncate_to(10)
    assert dialog.message_count == 5 and events == []
    dialog.truncate_to(3)
    assert [m.content for m in dialog.messages] == ["0", "1", "2"]
    assert events == [MessagesTruncated(3)]
    dialog.clear_messages()
    assert dialog.message_count == 0
    assert dialog.model_id == "m" and [s.name for s in dialog.skills] == ["s"]


def test_find_last_assistant_message_gives_the_truncation_point_for_regenerate() -> None:
    dialog = Dialog()
    dialog.append_message(Role.USER, "q1").append_message(Role.ASSISTANT, "a1")
    dialog.append_message(Role.USER, "q2").append_message(Role.ASSISTANT, "a2")
    dialog.append_message(Role.TOOL, "t")
    index = dialog.find_last_assistant_message()
    assert index == 3
    dialog.truncate_to(index)
    assert dialog.last_message.content == "q2"


def test_copy_to_copies_messages_and_configuration_but_not_functions_or_id() -> None:
    source = Dialog()
    source.append_message(Role.USER, "q").append_message(Role.ASSISTANT, "a")
    source.add_skill(Skill("s", "x")).add_mcp(MCPServer("m", command="c")).add_prompt(Prompt("p", "c"))
    source.provider_id, source.model_id = "prov", "model"
    source.capability_requirement = Capability.TEXT | Capability.IMAGE
    source.add_function(shout)
    target = Dialog()
    target.add_function(lookup)
    target.append_message(Role.USER, "old content of the target")
    target_id = target.id
    assert source.copy_to(target) is True
    assert target.id == target_id
    assert [m.content for m in target.messages] == ["q", "a"]
    assert [s.name for s in target.skills] == ["s"]
    assert [s.name for s in target.mcp_servers] == ["m"]
    assert [p.name for p in target.prompts] == ["p"]
    assert (target.provider_id, target.model_id) == ("prov", "model")
    assert target.capability_requirement == Capability.TEXT | Capability.IMAGE
    assert target.function_ids == ["lookup"]
    assert source.copy_to(None) is False
    assert source.copy_to(source) is False


def test_manual_streaming_api_keeps_reasoning_in_the_message() -> None:
    dialog = Dialog()
    events = recorder(dialog)
    dialog.begin_assistant_message()
    assert dialog.is_streaming
    dialog.append_reasoning("Thinking ")
    dialog.append_reasoning("hard.")
    dialog.append_delta("Hel")
    dialog.append_delta("lo")
    assert dialog.streaming_content == "Hello"
    assert dialog.reasoning_content == "Thinking hard."
    index = dialog.end_assistant_message()
    assert index == 0
    message = dialog.last_message
    assert (message.role, message.content, message.reasoning) == (Role.ASSISTANT, "Hello", "Thinking hard.")
    assert not dialog.is_streaming
    assert dialog.streaming_content == "" and dialog.reasoning_content == ""
    assert events == [
        StreamBegan(),
        StreamReasoning("Thinking "),
        StreamReasoning("hard."),
        StreamDelta("Hel"),
        StreamDelta("lo"),
        MessageAppended(0),
        StreamEnded("Hello"),
    ]


def test_ending_an_empty_stream_appends_nothing_but_still_ends() -> None:
    dialog = Dialog()
    events = recorder(dialog)
    dialog.begin_assistant_message()
    dialog.append_reasoning("only thoughts")
    assert dialog.end_assistant_message() == -1
    assert dialog.message_count == 0
    assert events[-1] == StreamEnded("")
    assert not any(isinstance(e, MessageAppended) for e in events)
    dialog.begin_assistant_message()
    assert dialog.reasoning_content == ""


def test_a_tool_call_only_reply_is_appended() -> None:
    dialog = Dialog()
    dialog.begin_assistant_message()
    calls = '[{"id":"c1","type":"function","function":{"name":"shout","arguments":"{}"}}]'
    assert dialog.end_assistant_message(tool_calls=calls, meta={"model_id": "m"}) == 0
    assert dialog.last_message.tool_calls == calls
    assert dialog.last_message.meta == {"model_id": "m"}


def test_a_failing_listener_does_not_stop_the_others() -> None:
    dialog = Dialog()
    seen: list[Event] = []

    def broken(event: Event) -> None:
        raise RuntimeError("listener bug")

    dialog.subscribe(broken)
    unsubscribe = dialog.subscribe(seen.append)
    dialog.append_message(Role.USER, "x")
    assert seen == [MessageAppended(0)]
    unsubscribe()
    dialog.append_message(Role.USER, "y")
    assert seen == [MessageAppended(0)]


def test_setters_announce_configuration_changes_once() -> None:
    dialog = Dialog()
    events = recorder(dialog)
    dialog.model_id = "m"
    dialog.model_id = "m"
    dialog.branch_from_id = "parent"
    assert events == [DialogChanged("model_id"), DialogChanged("branch_from_id")]


def full_dialog() -> Dialog:
    dialog = Dialog()
    dialog.branch_from_id = "0f0e0d0c-0000-4000-8000-000000000000"
    dialog.title = "Trip plan"
    dialog.provider_id, dialog.model_id = "local", "qwen3"
    dialog.capability_requirement = Capability.TEXT | Capability.TOOLS
    dialog.append_message(Role.USER, "Plan 3 days in Kyoto")
    dialog.append_message(Message(Role.ASSISTANT, "", reasoning="hmm", tool_calls='[{"id":"c"}]'))
    dialog.append_message(Message(Role.TOOL, "12°C", name="get_weather", tool_call_id="c"))
    dialog.add_skill(Skill("tone", "Be brief."))
    dialog.add_mcp(MCPServer("time", command="mcp-server-time", env={"TZ": "${TZ:-UTC}"}))
    dialog.add_prompt(Prompt("ask", "{{q}}", description="ask", tags=("a",)))
    dialog.add_function(shout)
    return dialog


def test_json_round_trip_restores_everything_but_functions() -> None:
    original = full_dialog()
    data = original.to_json()
    assert "functions" not in data
    assert data["capability_requirement"] == ["text", "tools"]
    restored = Dialog()
    assert restored.from_json(data) is True
    assert restored.id == original.id
    assert restored.to_json() == data
    assert restored.function_ids == []
    assert restored.mcp_servers[0].env == {"TZ": "${TZ:-UTC}"}


def test_from_json_without_an_id_keeps_the_new_one() -> None:
    data: dict[str, Any] = full_dialog().to_json()
    del data["id"]
    dialog = Dialog()
    own_id = dialog.id
    assert dialog.from_json(data) is False
    assert dialog.id == own_id
    assert dialog.message_count == 3


def test_from_json_survives_junk() -> None:
    dialog = Dialog()
    restored = dialog.from_json(
        {
            "id": "",
            "messages": [{"role": "alien", "content": "kept as user"}, "not an object", {"content": 5}],
            "mcp_servers": [{"name": "no-command"}],
            "capability_requirement": ["text", "bogus"],
        }
    )
    assert restored is False
    assert [(m.role, m.content) for m in dialog.messages] == [(Role.USER, "kept as user"), (Role.USER, "5")]
    assert dialog.mcp_servers == []
    assert dialog.capability_requirement == Capability.TEXT
