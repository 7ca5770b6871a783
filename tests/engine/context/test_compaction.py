"""Compaction into a branch: the summary with its ledger, pinned messages, the last turns, restore, the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, openai_stream
from visindigo.engine import Center, Dialog, Message, ModelInfo, Provider, Role
from visindigo.engine.context.compaction import (
    CompactionError,
    compact,
    compact_if_due,
    find_in_parent,
    is_pinned,
    ledger_of,
    move_out,
    pin,
    restore,
)

CALLS = json.dumps([{"id": "c1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}])


def add_provider(center: Center, server: LLMServer, window: int = 0) -> None:
    model = ModelInfo("m", context_window=window)
    center.add_provider(Provider("p", kind="openai", base_url=server.openai_url, models=[model]))


def long_dialog(center: Center) -> Dialog:
    dialog = center.create_dialog()
    dialog.append_message(Message(Role.SYSTEM, "You are terse."))
    for turn in range(5):
        dialog.append_message(Role.USER, f"question {turn}: what about topic {turn}?")
        if turn == 1:
            dialog.append_message(Message(Role.ASSISTANT, "", tool_calls=CALLS))
            dialog.append_message(Message(Role.TOOL, "12:00", name="clock", tool_call_id="c1"))
        dialog.append_message(Role.ASSISTANT, f"answer {turn} about topic {turn}")
    return dialog


async def test_compacting_makes_a_branch_with_a_summary_its_ledger_the_pins_and_the_last_turns(
    llm_server: LLMServer,
) -> None:
    center = Center()
    add_provider(center, llm_server)
    dialog = long_dialog(center)
    pin(dialog, 5)  # the tool result of turn 1: its call comes along
    llm_server.queue(openai_stream(["- The user asked about topics 0 to 2.", " Clock said 12:00."]))
    branch = await compact(center, dialog, keep_turns=2)

    assert branch.branch_from_id == dialog.id and branch.id != dialog.id
    assert dialog.message_count == 13  # the parent is untouched
    roles = [m.role for m in branch.messages]
    assert roles[:2] == [Role.SYSTEM, Role.USER]
    summary = branch.message_at(1)
    assert "Clock said 12:00." in summary.content and "compacted by m" in summary.content
    assert [m.content for m in branch.messages[2:4]] == ["", "12:00"]  # the pinned exchange, call and result
    assert [m.content for m in branch.messages[4:]] == [
        "question 3: what about topic 3?",
        "answer 3 about topic 3",
        "question 4: what about topic 4?",
        "answer 4 about topic 4",
    ]
    ledger = ledger_of(summary)
    assert ledger is not None and ledger["parent_id"] == dialog.id and ledger["summary_model"] == "m"
    assert ledger["pinned"] == [4, 5]
    replaced = {entry["position"]: entry for entry in ledger["replaced"]}
    assert sorted(replaced) == [1, 2, 3, 6, 7, 8]
    assert replaced[1]["first_words"] == "question 0: what about topic 0?" and replaced[1]["role"] == "user"
    assert all(entry["tokens"] > 0 for entry in replaced.values())
    # what the summary model was asked: the template filled with the replaced messages
    asked = llm_server.requests[-1].json["messages"][-1]["content"]
    assert "question 0: what about topic 0?" in asked and "(6 messages)" in asked
    assert "12:00" not in asked  # pinned messages are kept, not summarised


async def test_restore_puts_a_replaced_message_back_and_finds_it_in_the_parent(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server)
    dialog = long_dialog(center)
    llm_server.queue(openai_stream(["summary"]))
    branch = await compact(center, dialog, keep_turns=1)
    parent, index = find_in_parent(center, branch, 6) or (None, -1)
    assert parent is dialog and dialog.message_at(index).content == "answer 1 about topic 1"
    at = restore(center, branch, 6)
    assert at == 2 and branch.message_at(2).content == "answer 1 about topic 1"
    at = restore(center, branch, 1)  # earlier in the parent: goes before it
    assert at == 2 and [branch.message_at(i).content for i in (2, 3)] == [
        "question 0: what about topic 0?",
        "answer 1 about topic 1",
    ]
    ledger = ledger_of(branch.message_at(1))
    assert ledger is not None and {e["position"] for e in ledger["replaced"] if e.get("restored")} == {1, 6}
    with pytest.raises(CompactionError, match="already"):
        restore(center, branch, 1)
    assert branch.message_at(branch.message_count - 1).content == "answer 4 about topic 4"


async def test_pins_and_the_ledger_are_kept_in_the_store(llm_server: LLMServer, isolated_visindigo_home: Path) -> None:
    center = Center.open(isolated_visindigo_home)
    add_provider(center, llm_server)
    dialog = long_dialog(center)
    pin(dialog, 1)
    llm_server.queue(openai_stream(["summary"]))
    branch = await compact(center, dialog, keep_turns=1)
    branch_id, dialog_id = branch.id, dialog.id
    center.close()
    reopened = Center.open(isolated_visindigo_home)
    try:
        again = reopened.get_dialog(dialog_id)
        compacted = reopened.get_dialog(branch_id)
        assert again is not None and compacted is not None
        assert is_pinned(again.message_at(1)) and not is_pinned(again.message_at(2))
        ledger = ledger_of(compacted.message_at(1))
        assert ledger is not None and ledger["parent_id"] == dialog_id and ledger["pinned"] == [1]
        assert compacted.branch_from_id == dialog_id
    finally:
        reopened.close()


async def test_nothing_to_compact_and_a_failing_summary_change_nothing(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server)
    short = center.create_dialog()
    short.append_message(Role.USER, "only one question")
    with pytest.raises(CompactionError, match="nothing to compact"):
        await compact(center, short, keep_turns=2)
    dialog = long_dialog(center)
    llm_server.queue(openai_stream([]))
    before = len(center.dialog_summaries())
    with pytest.raises(CompactionError, match="empty summary"):
        await compact(center, dialog, keep_turns=1)
    assert len(center.dialog_summaries()) == before


async def test_automatic_compaction_is_off_by_default_and_starts_at_its_threshold(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server, window=120)
    dialog = long_dialog(center)
    assert await compact_if_due(center, dialog) is None  # off by default
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.5, "keep_turns": 1}
    llm_server.queue(openai_stream(["summary"]))
    branch = await compact_if_due(center, dialog)
    assert branch is not None and "automatically, at" in branch.message_at(1).content
    center.settings["context"]["auto_compact_at"] = 1.0
    assert await compact_if_due(center, branch) is None


async def test_the_summary_template_is_the_users(llm_server: LLMServer, tmp_path: Path) -> None:
    center = Center()
    add_provider(center, llm_server)
    (tmp_path / "compaction-summary.md").write_text("Notes please, {{count}} of them:\n{{transcript}}", "utf-8")
    center.settings["prompt_dir"] = str(tmp_path)
    llm_server.queue(openai_stream(["summary"]))
    await compact(center, long_dialog(center), keep_turns=1)
    assert llm_server.requests[-1].json["messages"][-1]["content"].startswith("Notes please, 10 of them:")


async def test_moving_the_oldest_turns_out_needs_no_model_and_keeps_the_ledger(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server)
    dialog = long_dialog(center)
    branch = move_out(center, dialog, keep_turns=1)
    assert llm_server.requests == []  # no summary to write
    marker = branch.message_at(1)
    ledger = ledger_of(marker)
    assert ledger is not None and ledger["moved_out"] and len(ledger["replaced"]) == 10
    assert marker.content.startswith("10 earlier messages were moved out of this branch")
    assert [m.content for m in branch.messages[2:]] == ["question 4: what about topic 4?", "answer 4 about topic 4"]
    assert restore(center, branch, 1) == 2


async def test_a_summary_no_smaller_than_what_it_replaces_makes_no_branch(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server)
    dialog = long_dialog(center)
    before = len(center.dialog_summaries())
    llm_server.queue(openai_stream(["a very long summary that says far more than the dialog did " * 20]))
    with pytest.raises(CompactionError, match="not smaller"):
        await compact(center, dialog, keep_turns=1)
    assert len(center.dialog_summaries()) == before


async def test_a_tiny_part_to_replace_is_not_compacted_and_no_summary_is_asked(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    dialog.append_message(Role.ASSISTANT, "hello")
    dialog.append_message(Role.USER, "and now?")
    asked = len(llm_server.requests)
    with pytest.raises(CompactionError, match="too little"):
        await compact(center, dialog, keep_turns=1)
    assert len(llm_server.requests) == asked


async def test_automatic_compaction_that_saves_nothing_is_not_retried_at_every_send(llm_server: LLMServer) -> None:
    center = Center()
    add_provider(center, llm_server, window=120)
    dialog = long_dialog(center)
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.5, "keep_turns": 1}
    llm_server.queue(openai_stream(["a very long summary that says far more than the dialog did " * 20]))
    with pytest.raises(CompactionError, match="not smaller"):
        await compact_if_due(center, dialog)
    asked = len(llm_server.requests)
    dialog.append_message(Role.USER, "one more")
    dialog.append_message(Role.ASSISTANT, "ok")
    assert await compact_if_due(center, dialog) is None  # declined: no second summary for a few more words
    assert len(llm_server.requests) == asked
    for turn in range(6):  # the dialog grew by more than a tenth of the window: worth another try
        dialog.append_message(Role.USER, f"a longer question number {turn} about many more things")
    llm_server.queue(openai_stream(["short"]))
    assert await compact_if_due(center, dialog) is not None
