"""Export and import: JSON documents with ids preserved, byte-identical round trips, readable Markdown."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from visindigo.engine import Capability, Center, Image, MCPServer, Message, Prompt, Role, Skill
from visindigo.engine.export import (
    ExportError,
    dialog_with_branches,
    export_json,
    export_markdown,
    export_text,
    import_json,
    read_export,
    write_export,
)

TOOL_CALLS = json.dumps(
    [{"id": "call_A", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Kyoto"}'}}]
)


def build_tree(center: Center) -> dict[str, str]:
    """A dialog with branches two levels deep, holding every kind of message and setting."""
    root = center.create_dialog()
    root.title = "Trip plan"
    root.provider_id = "local"
    root.model_id = "qwen3"
    root.capability_requirement = Capability.TEXT | Capability.TOOLS
    root.add_skill(Skill("terse", "Be brief."))
    root.add_mcp(MCPServer("weather", command="uvx", args=("weather-mcp",), env={"KEY": "${WEATHER_KEY}"}))
    root.add_prompt(Prompt("plan", "Plan {{days}} days in {{city}}", description="trip", tags=("travel",)))
    root.append_message(Role.SYSTEM, "You plan trips.")
    root.append_message(Message(Role.PROMPT, "Plan 3 days in 京都", name="plan",
                                images=[Image("image/png", "iVBORw0KGgo=")]))
    root.append_message(Message(Role.ASSISTANT, "", reasoning="Need the weather.", tool_calls=TOOL_CALLS,
                                meta={"model_id": "qwen3", "usage": {"input_tokens": 12, "output_tokens": 3}}))
    root.append_message(Message(Role.TOOL, "```\nsunny, 12°C\n```", tool_call_id="call_A"))
    root.append_message(Message(Role.ASSISTANT, "Day 1: Fushimi Inari.", meta={"status": "interrupted"}))
    second = center.regenerate(root)
    second.append_message(Role.ASSISTANT, "Day 1: Arashiyama.")
    third = center.branch_at(second, 2)
    third.append_message(Role.USER, "Make it 2 days")
    other = center.create_dialog()
    other.append_message(Role.USER, "unrelated")
    return {"root": root.id, "second": second.id, "third": third.id, "other": other.id}


@pytest.fixture(params=["store", "memory"])
def source(request: pytest.FixtureRequest, tmp_path: Path) -> Center:
    center = Center.open(tmp_path / "source") if request.param == "store" else Center()
    if center.store is not None:
        request.addfinalizer(center.close)
    return center


def test_export_import_export_is_byte_identical(source: Center, tmp_path: Path) -> None:
    ids = build_tree(source)
    first = export_json(source, ids["root"], with_branches=True)
    target = Center.open(tmp_path / "target")
    try:
        result = import_json(target, first)
        assert result.imported == [ids["root"], ids["second"], ids["third"]]
        assert result.duplicates == [] and result.problems == []
        assert export_json(target, ids["root"], with_branches=True) == first
        target.close()
        target = Center.open(tmp_path / "target")  # and again from the file, after a restart
        assert export_json(target, ids["root"], with_branches=True) == first
        assert {s.id: s.branch_from_id for s in target.dialog_summaries()} == {
            ids["root"]: "",
            ids["second"]: ids["root"],
            ids["third"]: ids["second"],
        }
    finally:
        target.close()


def test_the_export_holds_the_dialog_documents_in_tree_order(source: Center) -> None:
    ids = build_tree(source)
    assert dialog_with_branches(source, ids["root"]) == [ids["root"], ids["second"], ids["third"]]
    bundle = json.loads(export_json(source, ids["root"], with_branches=True))
    assert (bundle["format"], bundle["version"]) == ("visindigo.dialogs", 1)
    root = source.get_dialog(ids["root"])
    assert root is not None and bundle["dialogs"][0] == root.to_json()
    assert [d["id"] for d in json.loads(export_json(source, ids["second"]))["dialogs"]] == [ids["second"]]
    assert "${WEATHER_KEY}" in export_json(source, ids["root"])


def test_importing_twice_reports_duplicates_and_changes_nothing(source: Center, tmp_path: Path) -> None:
    ids = build_tree(source)
    text = export_json(source, ids["root"], with_branches=True)
    result = import_json(source, text)
    assert result.imported == [] and result.duplicates == [ids["root"], ids["second"], ids["third"]]
    doubled = json.loads(text)
    doubled["dialogs"].append(doubled["dialogs"][0])
    target = Center()
    again = import_json(target, json.dumps(doubled))
    assert again.imported == [ids["root"], ids["second"], ids["third"]] and again.duplicates == [ids["root"]]


def test_unusable_entries_and_files_are_reported(tmp_path: Path) -> None:
    center = Center()
    result = import_json(center, json.dumps({"format": "visindigo.dialogs", "version": 1, "dialogs": [
        {"id": "ok", "messages": [{"role": "user", "content": "hi"}]},
        {"messages": []},
        "text",
        {"id": "bad", "messages": "not a list"},
    ]}))
    assert result.imported == ["ok"]
    assert result.problems == [
        "dialog #2: has no 'id'; not imported",
        "dialog #3: not a JSON object; not imported",
        "dialog #4: 'messages' is not a list; not imported",
    ]
    with pytest.raises(ExportError, match="not a JSON file"):
        read_export("{oops")
    with pytest.raises(ExportError, match="not a Visindigo dialog export"):
        read_export(json.dumps({"format": "something-else", "dialogs": []}))
    with pytest.raises(ExportError, match="newer Visindigo"):
        read_export(json.dumps({"format": "visindigo.dialogs", "version": 99, "dialogs": []}))
    with pytest.raises(ExportError, match="cannot be read"):
        import_json(center, tmp_path / "missing.json")
    assert [d["id"] for d in read_export(json.dumps({"id": "bare", "messages": []}))] == ["bare"]


def test_import_from_a_file_and_write_export(source: Center, tmp_path: Path) -> None:
    ids = build_tree(source)
    path = write_export(tmp_path / "out" / "trip.json", export_text(source, ids["root"], with_branches=True))
    if os.name == "posix":
        assert path.stat().st_mode & 0o077 == 0
    target = Center()
    assert import_json(target, path).imported == [ids["root"], ids["second"], ids["third"]]
    assert [p.name for p in path.parent.iterdir()] == ["trip.json"]


def test_markdown_is_readable_and_keeps_code_blocks_intact(source: Center) -> None:
    ids = build_tree(source)
    text = export_markdown(source, ids["root"], with_branches=True)
    assert text.startswith("# Trip plan\n")
    assert text.count("\n---\n") == 2
    assert "- Branch of: Trip plan" in text
    assert "## You (template plan)\n\nPlan 3 days in 京都" in text
    assert "<details><summary>Reasoning</summary>\n\nNeed the weather.\n\n</details>" in text
    assert '**Tool call** `get_weather` (call_A)\n\n```json\n{\n  "city": "Kyoto"\n}\n```' in text
    assert "## Tool result · call_A\n\n````\n```\nsunny, 12°C\n```\n````" in text  # longer fence outside
    assert "## Assistant · interrupted\n\nDay 1: Fushimi Inari." in text
    assert "Day 1: Arashiyama." in text and "Make it 2 days" in text and "unrelated" not in text
    assert export_text(source, ids["other"], kind="markdown").startswith("# ")


def test_exporting_a_missing_dialog_is_an_error(source: Center) -> None:
    with pytest.raises(ExportError, match="no dialog"):
        export_json(source, "nope")


def test_an_import_that_cannot_be_stored_leaves_nothing_behind(source: Center, tmp_path: Path) -> None:
    import sqlite3

    ids = build_tree(source)
    text = export_json(source, ids["root"], with_branches=True)
    target = Center.open(tmp_path / "target")
    try:
        assert target.store is not None
        target.store._conn.execute("PRAGMA query_only = ON")  # the disk refuses every write
        with pytest.raises(sqlite3.OperationalError):
            import_json(target, text)
        target.store._conn.execute("PRAGMA query_only = OFF")
        assert target.dialog_summaries() == [] and target._dialogs == {}
        assert import_json(target, text).imported == [ids["root"], ids["second"], ids["third"]]
    finally:
        target.close()
