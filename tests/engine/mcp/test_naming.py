"""Function ids for MCP tools: `server__tool`, always accepted by the chat APIs, distinct, and stable."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from visindigo.engine import FUNCTION_ID_PATTERN
from visindigo.engine.mcp import assign_function_ids, function_id, sanitise


def test_simple_names_join_with_a_double_underscore() -> None:
    assert function_id("time", "get_current_time") == "time__get_current_time"


def test_characters_outside_the_rule_become_underscores() -> None:
    assert sanitise("files.read/all") == "files_read_all"
    assert function_id("my server", "dotted.name/tool") == "my_server__dotted_name_tool"
    assert sanitise("") == "x"


def test_long_ids_are_cut_to_64_with_a_hash_that_keeps_them_apart() -> None:
    server = "a-server-with-a-really-quite-long-name"
    first = function_id(server, "tool_number_one_with_a_long_name")
    second = function_id(server, "tool_number_two_with_a_long_name")
    assert len(first) == 64 and len(second) == 64
    assert first != second
    assert first.startswith("a-server-with-a-really-quite-long-name__tool")
    assert function_id(server, "tool_number_one_with_a_long_name") == first  # deterministic


def test_collisions_get_numbered_suffixes_in_order() -> None:
    ids = assign_function_ids([("s", "a.b"), ("s", "a_b"), ("s", "a/b"), ("t", "a.b")])
    assert ids == ["s__a_b", "s__a_b_2", "s__a_b_3", "t__a_b"]


def test_numbered_suffix_still_fits_in_64_characters() -> None:
    long_tool = "t" * 80
    ids = assign_function_ids([("s", long_tool), ("s", long_tool)])
    assert ids[0] != ids[1]
    assert all(len(i) <= 64 for i in ids)
    assert ids[1].endswith("_2")


names = st.text(min_size=0, max_size=90)


@given(st.lists(st.tuples(names, names), max_size=30))
def test_every_assigned_id_is_valid_and_unique(pairs: list[tuple[str, str]]) -> None:
    ids = assign_function_ids(pairs)
    assert len(ids) == len(pairs)
    assert len(set(ids)) == len(ids)
    assert all(FUNCTION_ID_PATTERN.fullmatch(i) for i in ids)
    assert assign_function_ids(pairs) == ids
