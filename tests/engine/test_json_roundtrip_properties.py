"""Property tests: whatever a message, prompt or dialog holds survives to_json -> JSON text -> from_json."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from visindigo.engine import Capability, Dialog, Image, MCPServer, Message, Prompt, Role, Skill

text = st.text(max_size=40)
names = st.text(alphabet=st.characters(categories=("L", "N"), include_characters="_-"), min_size=1, max_size=12)
json_scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
meta = st.dictionaries(names, json_scalars, max_size=3)

messages = st.builds(
    Message,
    role=st.sampled_from(list(Role)),
    content=text,
    name=text,
    reasoning=text,
    tool_call_id=text,
    tool_calls=st.just("") | st.just('[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]'),
    images=st.lists(st.builds(Image, mime_type=st.just("image/png"), data=names), max_size=2),
    meta=meta,
)
prompts = st.builds(Prompt, name=text, content=text, description=text, tags=st.lists(text, max_size=3).map(tuple))
skills = st.builds(Skill, name=names, content=text, description=text)
servers = st.builds(
    MCPServer,
    name=names,
    command=names,
    args=st.lists(text, max_size=3).map(tuple),
    env=st.dictionaries(names, text, max_size=2),
    approval=st.sampled_from(["ask", "allow"]),
)


def through_json_text(data: dict[str, object]) -> dict[str, object]:
    loaded: dict[str, object] = json.loads(json.dumps(data))
    return loaded


@given(messages)
def test_message_round_trip(message: Message) -> None:
    assert Message.from_json(through_json_text(message.to_json())) == message


@given(prompts)
def test_prompt_round_trip(prompt: Prompt) -> None:
    assert Prompt.from_json(through_json_text(prompt.to_json())) == prompt


@settings(max_examples=50)
@given(
    st.lists(messages, max_size=5),
    st.lists(skills, max_size=3, unique_by=lambda s: s.name),
    st.lists(servers, max_size=2, unique_by=lambda s: s.name),
    st.lists(prompts, max_size=2, unique_by=lambda p: p.name),
    st.sampled_from([Capability.TEXT, Capability.TEXT | Capability.IMAGE, Capability.TEXT | Capability.TOOLS]),
    text,
    text,
)
def test_dialog_round_trip(
    items: list[Message],
    skill_items: list[Skill],
    server_items: list[MCPServer],
    prompt_items: list[Prompt],
    requirement: Capability,
    title: str,
    model: str,
) -> None:
    dialog = Dialog()
    dialog.title, dialog.model_id, dialog.capability_requirement = title, model, requirement
    for message in items:
        dialog.append_message(message)
    for skill in skill_items:
        dialog.add_skill(skill)
    for server in server_items:
        dialog.add_mcp(server)
    for prompt in prompt_items:
        dialog.add_prompt(prompt)
    document = dialog.to_json()
    restored = Dialog()
    assert restored.from_json(through_json_text(document)) is True
    assert restored.to_json() == document
    assert restored.messages == dialog.messages
    assert restored.skills == dialog.skills and restored.mcp_servers == dialog.mcp_servers
