"""Regenerate and edit make branches, never delete; the family tree and the points where branches part."""

from __future__ import annotations

import pytest

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.tui.workbench import branches


def _dialog(center: Center, *contents: tuple[Role, str]) -> Dialog:
    dialog = center.create_dialog()
    dialog.title = "Trip plan"
    for role, content in contents:
        dialog.append_message(role, content)
    return dialog


def _texts(dialog: Dialog) -> list[str]:
    return [m.content for m in dialog.messages]


@pytest.fixture
def center() -> Center:
    return Center()


def test_regenerate_branches_before_the_last_answer_keeping_tool_results(center: Center) -> None:
    original = _dialog(
        center,
        (Role.USER, "hi"),
        (Role.ASSISTANT, "hello"),
        (Role.USER, "weather?"),
        (Role.ASSISTANT, "checking"),
        (Role.TOOL, "12C"),
        (Role.ASSISTANT, "It is 12C"),
    )
    child = branches.regenerate(center, original, None)
    assert child is not None
    assert child.branch_from_id == original.id
    assert _texts(child) == ["hi", "hello", "weather?", "checking", "12C"]
    assert child.title == "Trip plan"
    assert original.message_count == 6  # nothing deleted
    assert center.get_dialog(child.id) is child


def test_regenerate_at_the_cursor(center: Center) -> None:
    original = _dialog(
        center,
        (Role.USER, "a"),
        (Role.ASSISTANT, "b"),
        (Role.USER, "c"),
        (Role.ASSISTANT, "calls"),
        (Role.TOOL, "result"),
        (Role.ASSISTANT, "d"),
    )
    assert branches.regenerate_cut(original, 1) == 1  # an answer: cut before it
    assert branches.regenerate_cut(original, 2) == 3  # a question: answer it again
    assert branches.regenerate_cut(original, 4) == 5  # a tool result: the answer that read it
    child = branches.regenerate(center, original, 1)
    assert child is not None
    assert _texts(child) == ["a"]


def test_regenerate_without_an_answer_means_run_in_place(center: Center) -> None:
    original = _dialog(center, (Role.USER, "a"))
    assert branches.regenerate(center, original, None) is None
    assert len(center.dialogs) == 1


def test_edit_makes_a_branch_from_that_point(center: Center) -> None:
    original = _dialog(center, (Role.USER, "a"), (Role.ASSISTANT, "b"), (Role.USER, "c"), (Role.ASSISTANT, "d"))
    child = branches.edit(center, original, 2, "c, but better")
    assert _texts(child) == ["a", "b", "c, but better"]
    assert child.message_at(2).role is Role.USER
    assert child.branch_from_id == original.id
    assert _texts(original) == ["a", "b", "c", "d"]


def test_only_user_messages_can_be_edited(center: Center) -> None:
    original = _dialog(center, (Role.USER, "a"), (Role.ASSISTANT, "b"))
    with pytest.raises(ValueError, match="only a message you wrote"):
        branches.edit(center, original, 1, "x")


def test_tree_index_parent_children_siblings(center: Center) -> None:
    root = _dialog(center, (Role.USER, "a"), (Role.ASSISTANT, "b"))
    first = center.branch_at(root, 1)
    second = center.branch_at(root, 1)
    grandchild = center.branch_at(first, 1)
    other = _dialog(center, (Role.USER, "z"))
    index = branches.TreeIndex.build(center.dialog_summaries())
    assert index.roots == [root.id, other.id]
    assert index.children[root.id] == [first.id, second.id]
    assert index.parent(grandchild.id) == first.id
    assert index.parent(root.id) is None
    assert index.sibling(first.id, 1) == second.id
    assert index.sibling(second.id, 1) is None
    assert index.sibling(root.id, 1) == other.id
    assert index.family(second.id) == [root.id, first.id, grandchild.id, second.id]
    assert index.ordinal(first.id) == 2
    assert index.ordinal(second.id) == 3
    assert index.ordinal(grandchild.id) == 4  # numbered across the family: never a second ②
    assert index.ordinal(root.id) == 1
    assert index.ordinal(other.id) == 1


def test_tree_index_survives_a_cycle(center: Center) -> None:
    a = _dialog(center, (Role.USER, "a"))
    b = _dialog(center, (Role.USER, "b"))
    a.branch_from_id = b.id
    b.branch_from_id = a.id
    index = branches.TreeIndex.build(center.dialog_summaries())
    assert set(index.roots) == {a.id, b.id}
    assert set(index.family(a.id)) == {a.id}


def test_alternatives_at_the_point_where_regenerations_part(center: Center) -> None:
    original = _dialog(center, (Role.USER, "q"), (Role.ASSISTANT, "answer 1"))
    second = branches.regenerate(center, original)
    assert second is not None
    second.append_message(Role.ASSISTANT, "answer 2")
    third = branches.regenerate(center, second)  # regenerating a branch again: same point, third choice
    assert third is not None
    third.append_message(Role.ASSISTANT, "answer 3")
    family = center.dialogs
    for shown in (original, second, third):
        found = branches.alternatives(shown, family)
        assert list(found) == [1]
        assert [d.id for d in found[1]] == [original.id, second.id, third.id]


def test_alternatives_ignore_a_branch_still_waiting_and_descendants_that_only_continue(center: Center) -> None:
    original = _dialog(center, (Role.USER, "q"), (Role.ASSISTANT, "a"))
    waiting = branches.regenerate(center, original)
    assert waiting is not None
    longer = center.branch_at(original, 2)
    longer.append_message(Role.USER, "more")
    assert branches.alternatives(original, center.dialogs) == {}


def test_alternatives_show_one_choice_per_different_message(center: Center) -> None:
    original = _dialog(center, (Role.USER, "q"), (Role.ASSISTANT, "a"), (Role.USER, "q2"), (Role.ASSISTANT, "a2"))
    edited = branches.edit(center, original, 2, "q2 edited")
    edited.append_message(Role.ASSISTANT, "a2'")
    deeper = center.branch_at(edited, 4)  # shares the edited message with `edited`
    deeper.append_message(Role.USER, "go on")
    found = branches.alternatives(original, center.dialogs)
    assert [d.id for d in found[2]] == [original.id, edited.id]
    assert branches.same_message(Message(Role.USER, "x"), Message(Role.USER, "x"))
