"""The store keeps every dialog as rows, written as the dialog changes, and reads them back on reopen."""

from __future__ import annotations

import json
from pathlib import Path

from visindigo.engine import Capability, Center, Image, MCPServer, Message, Prompt, Role, Skill
from visindigo.engine.storage.rows import make_title

from .conftest import raw_rows, reopen


def rich_message() -> Message:
    return Message(
        Role.ASSISTANT,
        "Here — 京都 ✓",
        name="helper",
        reasoning="thinking about Kyoto",
        tool_calls='[{"id":"call_A","type":"function","function":{"name":"get_time","arguments":"{\\"tz\\":\\"UTC\\"}"}}]',
        images=[Image("image/png", "iVBORw0KGgo=")],
        meta={"provider_id": "local", "usage": {"input_tokens": 9, "output_tokens": 2}, "status": "incomplete"},
    )


def test_each_append_is_one_row_and_everything_survives_a_restart(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "What time is it in UTC?")
    assert raw_rows(home, "SELECT position, role, content FROM messages") == [(0, "user", "What time is it in UTC?")]
    dialog.append_message(rich_message())
    first_rows = raw_rows(home, "SELECT id FROM messages ORDER BY position")
    assert center.store is not None
    statements: list[str] = []
    center.store._conn.set_trace_callback(statements.append)
    dialog.append_message(Message(Role.TOOL, '{"time": "12:00"}', tool_call_id="call_A"))
    center.store._conn.set_trace_callback(None)
    # One insert (SQLite traces it again for each trigger it fires), nothing deleted or rewritten.
    writes = {s.split("(")[0].strip() for s in statements if s.startswith(("INSERT", "DELETE", "UPDATE messages"))}
    assert writes == {"INSERT INTO messages"}
    assert raw_rows(home, "SELECT id FROM messages ORDER BY position")[:2] == first_rows
    assert raw_rows(home, "SELECT count(*) FROM messages") == [(3,)]
    expected = dialog.to_json()

    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None and loaded is not dialog
        assert loaded.to_json() == expected
    finally:
        again.close()


def test_truncate_replace_and_clear_change_only_the_rows_concerned(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    for text in ("one", "two", "three", "four"):
        dialog.append_message(Role.USER, text)
    first_ids = raw_rows(home, "SELECT id FROM messages ORDER BY position")
    dialog.truncate_to(2)
    assert raw_rows(home, "SELECT content FROM messages ORDER BY position") == [("one",), ("two",)]
    assert raw_rows(home, "SELECT id FROM messages ORDER BY position") == first_ids[:2]  # rows kept, not rewritten
    replaced = dialog.message_at(1)
    replaced.meta["status"] = "interrupted"
    replaced.content = "two, edited"
    dialog.replace_message(1, replaced)
    assert raw_rows(home, "SELECT content, meta FROM messages WHERE position = 1") == [
        ("two, edited", '{"status":"interrupted"}')
    ]
    assert raw_rows(home, "SELECT message_count FROM dialogs") == [(2,)]
    dialog.clear_messages()
    assert raw_rows(home, "SELECT count(*) FROM messages") == [(0,)]
    assert raw_rows(home, "SELECT message_count FROM dialogs") == [(0,)]


def test_configuration_changes_update_the_dialog_row(center: Center, home: Path) -> None:
    parent = center.create_dialog()
    dialog = center.create_dialog(branch_from=parent)
    dialog.provider_id = "local"
    dialog.model_id = "qwen3"
    dialog.capability_requirement = Capability.TEXT | Capability.TOOLS
    dialog.add_skill(Skill("terse", "Answer in one line.", description="short answers"))
    dialog.add_mcp(MCPServer("time", command="uvx", args=("mcp-server-time",), env={"TOKEN": "${TIME_TOKEN}"}))
    dialog.add_prompt(Prompt("review", "Review {{code}}", tags=("code",)))
    dialog.title = "Config test"
    row = raw_rows(home, "SELECT branch_from_id, provider_id, model_id, capability_requirement, mcp_servers "
                   "FROM dialogs WHERE id = ?", (dialog.id,))[0]
    assert row[:4] == (parent.id, "local", "qwen3", '["text","tools"]')
    assert "${TIME_TOKEN}" in str(row[4])  # written as configured, never expanded
    expected = dialog.to_json()

    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None
        assert loaded.to_json() == expected
    finally:
        again.close()


def test_the_first_user_message_names_an_untitled_dialog_and_rename_overrides_it(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.SYSTEM, "You are helpful.")
    assert dialog.title == ""
    dialog.append_message(Role.USER, "\n  Plan   three days in Kyoto for a family of four\nwith two kids")
    assert dialog.title == "Plan three days in Kyoto for a family of four"
    dialog.append_message(Role.USER, "Another question")
    assert dialog.title == "Plan three days in Kyoto for a family of four"
    assert center.rename_dialog(dialog.id, "Kyoto") is True
    assert raw_rows(home, "SELECT title FROM dialogs") == [("Kyoto",)]

    again = reopen(center, home)
    try:
        # Renaming a dialog that was never opened does not load it.
        assert again.rename_dialog(dialog.id, "Kyoto trip") is True
        assert again._dialogs == {}
        assert [s.title for s in again.dialog_summaries()] == ["Kyoto trip"]
        assert again.rename_dialog("no-such-id", "x") is False
    finally:
        again.close()


def test_titles_are_a_short_first_line() -> None:
    assert make_title("# Heading\nbody") == "Heading"
    assert make_title("   \n\n") == ""
    long = make_title("word " * 40)
    assert long.endswith("…") and len(long) <= 60
    assert make_title("京都" * 50).endswith("…")


def test_listing_reads_metadata_only_and_messages_load_when_a_dialog_is_opened(center: Center, home: Path) -> None:
    root = center.create_dialog()
    root.append_message(Role.USER, "root question")
    child = center.branch_at(root, 1)
    child.append_message(Role.ASSISTANT, "another answer")
    again = reopen(center, home)
    try:
        statements: list[str] = []
        assert again.store is not None
        again.store._conn.set_trace_callback(statements.append)
        summaries = {s.id: s for s in again.dialog_summaries()}
        assert {k: (s.branch_from_id, s.title, s.message_count) for k, s in summaries.items()} == {
            root.id: ("", "root question", 1),
            child.id: (root.id, "root question", 2),
        }
        assert statements and not any("messages" in s for s in statements)
        assert again._dialogs == {}
        loaded = again.get_dialog(child.id)
        assert loaded is not None and [m.content for m in loaded.messages] == ["root question", "another answer"]
        assert any("FROM messages" in s for s in statements)
        assert again.get_dialog(child.id) is loaded  # opened once, kept
        assert again.get_dialog("missing") is None
    finally:
        again.close()


def test_removing_a_dialog_deletes_it_and_repoints_unopened_branches(center: Center, home: Path) -> None:
    root = center.create_dialog()
    middle = center.create_dialog(branch_from=root)
    middle.append_message(Role.USER, "in the middle")
    leaf_a = center.create_dialog(branch_from=middle)
    leaf_b = center.create_dialog(branch_from=middle)
    again = reopen(center, home)
    try:
        opened_leaf = again.get_dialog(leaf_a.id)  # one branch open, the other only in the store
        assert again.remove_dialog(middle.id) is True
        assert opened_leaf is not None and opened_leaf.branch_from_id == root.id
        parents = dict(raw_rows(home, "SELECT id, branch_from_id FROM dialogs"))
        assert parents == {root.id: "", leaf_a.id: root.id, leaf_b.id: root.id}
        assert raw_rows(home, "SELECT count(*) FROM messages") == [(0,)]
        assert again.remove_dialog(middle.id) is False
        assert again.get_dialog(middle.id) is None
    finally:
        again.close()


def test_branches_made_by_the_center_are_stored_whole(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "question")
    dialog.append_message(Role.ASSISTANT, "answer one")
    branch = center.regenerate(dialog)
    branch.append_message(Role.ASSISTANT, "answer two")
    rows = raw_rows(home, "SELECT position, content FROM messages WHERE dialog_id = ? ORDER BY position",
                    (branch.id,))
    assert rows == [(0, "question"), (1, "answer two")]
    assert raw_rows(home, "SELECT branch_from_id FROM dialogs WHERE id = ?", (branch.id,)) == [(dialog.id,)]


def test_a_dialog_added_from_outside_or_reloaded_from_json_is_written_whole(center: Center, home: Path) -> None:
    from visindigo.engine import Dialog

    outside = Dialog()
    outside.append_message(Role.USER, "made before the center knew it")
    center.add_dialog(outside)
    assert raw_rows(home, "SELECT content FROM messages") == [("made before the center knew it",)]
    document = outside.to_json()
    document["messages"] = [{"role": "user", "content": "replaced"}, {"role": "assistant", "content": "whole"}]
    outside.from_json(document)
    assert raw_rows(home, "SELECT content FROM messages ORDER BY position") == [("replaced",), ("whole",)]
    target = center.create_dialog()
    outside.copy_to(target)
    assert raw_rows(home, "SELECT content FROM messages WHERE dialog_id = ? ORDER BY position", (target.id,)) == [
        ("replaced",),
        ("whole",),
    ]


def test_a_center_with_dialogs_gets_them_stored_when_a_store_is_attached(home: Path) -> None:
    from visindigo.engine.storage import Store

    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "kept in memory first")
    store = Store.open(home / "data")
    try:
        center.attach_store(store)
        assert store.load_document(dialog.id) == dialog.to_json()
    finally:
        store.close()


def test_dialogs_property_loads_every_stored_dialog(center: Center, home: Path) -> None:
    ids = {center.create_dialog().id for _ in range(3)}
    again = reopen(center, home)
    try:
        assert {d.id for d in again.dialogs} == ids
    finally:
        again.close()


def test_unsent_composer_text_is_kept_per_dialog(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    assert center.store is not None
    center.store.save_input_draft(dialog.id, "half a thought")
    again = reopen(center, home)
    try:
        assert again.store is not None and again.store.input_draft(dialog.id) == "half a thought"
    finally:
        again.close()


def test_the_in_memory_center_is_unchanged(tmp_path: Path) -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "no store")
    assert center.store is None and dialog.title == ""  # titles come from the store only
    assert not (tmp_path / "home").exists()
    assert [s.id for s in center.dialog_summaries()] == [dialog.id]


def test_meta_is_stored_as_readable_json(center: Center, home: Path) -> None:
    dialog = center.create_dialog()
    dialog.append_message(rich_message())
    meta, images = raw_rows(home, "SELECT meta, images FROM messages")[0]
    assert json.loads(str(meta))["usage"] == {"input_tokens": 9, "output_tokens": 2}
    assert json.loads(str(images)) == [{"mime_type": "image/png", "data": "iVBORw0KGgo="}]


def test_a_meta_value_json_cannot_hold_is_stored_as_text_rather_than_failing_the_save(
    center: Center, home: Path
) -> None:
    errors: list[str] = []
    assert center.store is not None
    center.store.on_error = errors.append
    dialog = center.create_dialog()
    dialog.append_message(Message(Role.ASSISTANT, "odd", meta={"when": Path("/tmp/x")}))
    assert errors == []
    assert raw_rows(home, "SELECT meta FROM messages") == [('{"when":"/tmp/x"}',)]
