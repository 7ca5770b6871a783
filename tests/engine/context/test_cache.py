"""Anthropic prompt caching: breakpoints on the stable prefix as sent, and the note when a change breaks it."""

from __future__ import annotations

from typing import Any

from tests.engine.context.test_usage import anthropic_cached_stream
from tests.engine.test_functions_and_commands import Echo
from tests.llm_server import LLMServer, anthropic_stream
from visindigo.engine import CacheBreak, Capability, Center, ModelInfo, Provider, Role, Skill

EPHEMERAL = {"type": "ephemeral"}


def anthropic_dialog(server: LLMServer, **settings: Any) -> Any:
    center = Center()
    model = ModelInfo("claude-sonnet-4-20250514", capabilities=Capability.TEXT | Capability.TOOLS)
    center.add_provider(
        Provider("a", kind="anthropic", base_url=server.anthropic_url, api_key="k", models=[model], settings=settings)
    )
    dialog = center.create_dialog()
    dialog.add_skill(Skill("terse", "Answer briefly."))
    return center, dialog


async def ask(dialog: Any, text: str) -> list[Any]:
    dialog.append_message(Role.USER, text)
    return [event async for event in dialog.run()]


def marked(blocks: list[dict[str, Any]]) -> list[bool]:
    return ["cache_control" in block for block in blocks]


async def test_breakpoints_go_on_the_system_prompt_the_tools_and_the_history(llm_server: LLMServer) -> None:
    center, dialog = anthropic_dialog(llm_server)
    center.add_function(Echo())
    llm_server.queue(anthropic_stream(["one"]), anthropic_stream(["two"]))
    await ask(dialog, "first")
    await ask(dialog, "second")
    body = llm_server.requests[-1].json
    assert body["system"] == [{"type": "text", "text": "Answer briefly.", "cache_control": EPHEMERAL}]
    assert body["tools"][-1]["cache_control"] == EPHEMERAL
    first, answer, second = body["messages"]
    # the history before the last question (the answer to the first) and the end of the request
    assert marked(first["content"]) == [False]
    assert marked(answer["content"]) == [True] and marked(second["content"]) == [True]
    breakpoints = str(body).count("'cache_control'")
    assert breakpoints == 4  # the API's limit


async def test_caching_can_be_turned_off(llm_server: LLMServer) -> None:
    _, dialog = anthropic_dialog(llm_server, prompt_caching=False)
    llm_server.queue(anthropic_stream(["one"]))
    await ask(dialog, "first")
    body = llm_server.requests[-1].json
    assert body["system"] == "Answer briefly." and "cache_control" not in str(body)


async def test_a_changed_skill_breaks_the_cache_and_the_dialog_says_so(llm_server: LLMServer) -> None:
    _, dialog = anthropic_dialog(llm_server)
    llm_server.queue(
        anthropic_cached_stream(20, 0, 3000, 5),  # the first turn writes 3,000 tokens to the cache
        anthropic_cached_stream(20, 3000, 40, 5),  # the second reads them back: no note
        anthropic_cached_stream(20, 0, 3100, 5),  # after the skill changed, nothing is read
    )
    assert not [e for e in await ask(dialog, "first") if isinstance(e, CacheBreak)]
    assert not [e for e in await ask(dialog, "second") if isinstance(e, CacheBreak)]
    dialog.add_skill(Skill("terse", "Answer very briefly."))
    [note] = [e for e in await ask(dialog, "third") if isinstance(e, CacheBreak)]
    assert note.reason.startswith("the system prompt changed") and note.tokens == 3040
    assert "3,040 tokens were read again" in note.text


async def test_an_edited_question_in_a_branch_names_the_message(llm_server: LLMServer) -> None:
    center, dialog = anthropic_dialog(llm_server)
    llm_server.queue(
        anthropic_cached_stream(20, 0, 2000, 5),
        anthropic_cached_stream(20, 2000, 30, 5),
        anthropic_cached_stream(20, 0, 1990, 5),
    )
    await ask(dialog, "first question")
    await ask(dialog, "second question")
    edited = center.branch_at(dialog, 0)  # the first question edited, as the app's edit does
    [note] = [e for e in await ask(edited, "first question, edited") if isinstance(e, CacheBreak)]
    assert note.reason == "your message at position 1 changed (“first question, edited…”)"
    assert note.tokens == 2030


async def test_a_changed_tool_list_breaks_the_cache_and_the_note_names_it(llm_server: LLMServer) -> None:
    center, dialog = anthropic_dialog(llm_server)
    llm_server.queue(
        anthropic_cached_stream(20, 0, 2500, 5),  # the first turn writes 2,500 tokens to the cache
        anthropic_cached_stream(20, 2500, 30, 5),  # the second reads them back: no note
        anthropic_cached_stream(20, 0, 2600, 5),  # a tool was added: the tools come before the messages
    )
    assert not [e for e in await ask(dialog, "first") if isinstance(e, CacheBreak)]
    assert not [e for e in await ask(dialog, "second") if isinstance(e, CacheBreak)]
    assert "tools" not in llm_server.requests[-1].json
    center.add_function(Echo())
    [note] = [e for e in await ask(dialog, "third") if isinstance(e, CacheBreak)]
    assert llm_server.requests[-1].json["tools"][-1]["cache_control"] == EPHEMERAL
    assert note.reason == "the tool list changed" and note.tokens == 2530
    assert "the tool list changed" in note.text and "2,530 tokens were read again" in note.text
