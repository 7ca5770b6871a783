"""The timeline of a family, forks from any message, tail forks and labels (workbench rules, no Textual)."""

from __future__ import annotations

from pathlib import Path

import pytest

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.tui.workbench.branches import TreeIndex, edit, regenerate
from visindigo.tui.workbench.timeline import (
    fork_at,
    forked_from,
    labelled,
    set_label,
    tail_fork,
    timeline,
)


def conversation(center: Center, pairs: list[tuple[str, str]], model: str = "m1") -> Dialog:
    dialog = center.create_dialog()
    dialog.title = "Trip"
    for question, reply in pairs:
        dialog.append_message(Role.USER, question)
        dialog.append_message(Message(Role.ASSISTANT, reply, meta={"model_id": model}))
    return dialog


def family_of(center: Center, dialog: Dialog) -> tuple[list[Dialog], dict[str, int]]:
    index = TreeIndex.build(center.dialog_summaries())
    members = [center.get_dialog(i) for i in index.family(dialog.id)]
    return [m for m in members if m is not None], index.ordinals()


def test_the_timeline_lists_each_question_once_with_its_branch_model_and_first_words() -> None:
    center = Center()
    root = conversation(center, [("Plan 3 days in Kyoto for a family", "Day 1"), ("And food?", "Ramen")])
    edited = edit(center, root, 2, "And temples?")
    edited.append_message(Message(Role.ASSISTANT, "Kinkaku-ji", meta={"model_id": "m2"}))
    members, ordinals = family_of(center, root)
    entries = timeline(members, ordinals)
    assert [(e.first_words, e.branch, e.model, e.index) for e in entries] == [
        ("Plan 3 days in Kyoto for a family", "①", "m1", 0),
        ("And food?", "①", "m1", 2),
        ("And temples?", "②", "m2", 2),  # the shared first question is listed once, on ①
    ]
    assert {e.dialog_id for e in entries} == {root.id, edited.id}


def test_the_timeline_filter_matches_words_labels_branch_and_model() -> None:
    center = Center()
    root = conversation(center, [("Plan Kyoto", "a"), ("Budget?", "b")])
    set_label(root, 2, "money")
    entries = timeline([root])
    assert [e.first_words for e in entries if e.matches("money")] == ["Budget?"]
    assert [e.first_words for e in entries if e.matches("kyoto m1")] == ["Plan Kyoto"]
    assert entries[1].label == "money"


def test_a_labelled_answer_tool_call_or_result_is_an_entry_after_its_question() -> None:
    """A label goes on any message, so the timeline lists the labelled ones that are not questions too (kind
    says what each is); unlabelled answers stay out of it."""
    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "weather?")
    dialog.append_message(
        Message(Role.ASSISTANT, "", tool_calls='[{"id":"c1","type":"function","function":{"name":"get_weather"}}]',
                meta={"model_id": "m1"})
    )  # fmt: skip
    dialog.append_message(Message(Role.TOOL, '{"c": 12}', tool_call_id="c1", name="get_weather"))
    dialog.append_message(Message(Role.ASSISTANT, "It is 12 degrees", meta={"model_id": "m1"}))
    dialog.append_message(Role.USER, "and tomorrow?")
    dialog.append_message(Message(Role.ASSISTANT, "Rain", meta={"model_id": "m1"}))
    set_label(dialog, 1, "the call")
    set_label(dialog, 2, "raw data")
    set_label(dialog, 3, "best")
    entries = timeline([dialog])
    assert [(e.index, e.kind, e.first_words, e.label) for e in entries] == [
        (0, "question", "weather?", ""),
        (1, "tool call", "get_weather", "the call"),
        (2, "tool result", '{"c": 12}', "raw data"),
        (3, "answer", "It is 12 degrees", "best"),
        (4, "question", "and tomorrow?", ""),
    ]
    assert [e.index for e in entries if e.matches("best")] == [3]
    assert entries[3].model == "m1"


def test_hostile_text_in_a_question_reaches_the_timeline_as_one_clean_line() -> None:
    center = Center()
    root = conversation(center, [("evil\x1b]2;owned\x07\nsecond line " + "x" * 200, "ok")])
    entry = timeline([root])[0]
    assert "\x1b" not in entry.first_words and "\n" not in entry.first_words and len(entry.first_words) <= 60


def test_fork_from_an_answer_a_tool_call_or_a_tool_result_ends_the_history_there() -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "weather?")
    dialog.append_message(Message(Role.ASSISTANT, "", tool_calls='[{"id":"c1"}]'))
    dialog.append_message(Message(Role.TOOL, "12°C", tool_call_id="c1"))
    dialog.append_message(Message(Role.ASSISTANT, "It is 12°C"))
    for index in (1, 2, 3):
        branch = fork_at(center, dialog, index)
        assert branch.branch_from_id == dialog.id
        assert branch.messages == dialog.messages[: index + 1]
    assert dialog.message_count == 4  # nothing taken from the original
    with pytest.raises(IndexError):
        fork_at(center, dialog, 9)


def test_a_fork_is_a_branch_of_the_family_and_shows_as_an_alternative_once_it_goes_on() -> None:
    center = Center()
    root = conversation(center, [("q1", "a1"), ("q2", "a2")])
    branch = fork_at(center, root, 1)
    branch.append_message(Role.USER, "q2 other")
    members, _ = family_of(center, root)
    assert {m.id for m in members} == {root.id, branch.id}
    assert [e.first_words for e in timeline(members)] == ["q1", "q2", "q2 other"]


def test_tail_fork_keeps_the_last_turns_and_the_system_message_and_points_back() -> None:
    center = Center()
    dialog = center.create_dialog()
    dialog.title = "Long"
    dialog.append_message(Role.SYSTEM, "be brief")
    for n in range(1, 5):
        dialog.append_message(Role.USER, f"q{n}")
        dialog.append_message(Role.ASSISTANT, f"a{n}")
    fresh = tail_fork(center, dialog, 2)
    assert [m.content for m in fresh.messages] == ["be brief", "q3", "a3", "q4", "a4"]
    assert fresh.branch_from_id == "" and fresh.id != dialog.id
    assert forked_from(fresh) == (dialog.id, 5)
    assert fresh.title == "Long (last 2 turns)"
    assert center.get_dialog(fresh.id) is fresh
    assert [m.content for m in tail_fork(center, dialog, 99).messages][1] == "q1"  # more than there are: all
    with pytest.raises(ValueError):
        tail_fork(center, dialog, 0)
    with pytest.raises(ValueError):
        tail_fork(center, center.create_dialog(), 1)


def test_labels_are_saved_in_the_store_and_come_back(tmp_path: Path) -> None:
    center = Center.open(tmp_path)
    try:
        dialog = conversation(center, [("q1", "a1"), ("q2", "a2")])
        assert set_label(dialog, 1, "  the   good\nanswer  ") == "the good answer"
        assert set_label(dialog, 3, "x" * 100).endswith("…")
        set_label(dialog, 3, "")  # removed
        dialog_id = dialog.id
    finally:
        center.close()
    reopened = Center.open(tmp_path)
    try:
        again = reopened.get_dialog(dialog_id)
        assert again is not None
        assert again.message_at(1).meta["label"] == "the good answer"
        assert "label" not in again.message_at(3).meta
        assert labelled([again]) == [(dialog_id, 1, "the good answer")]
    finally:
        reopened.close()


def test_a_label_on_a_shared_message_is_listed_once_for_the_family() -> None:
    center = Center()
    root = conversation(center, [("q1", "a1"), ("q2", "a2")])
    set_label(root, 0, "start")
    child = regenerate(center, root)
    assert child is not None and child.message_at(0).meta["label"] == "start"  # copied with the history
    members, _ = family_of(center, root)
    assert labelled(members) == [(root.id, 0, "start")]


def test_dialog_search_finds_the_labels_of_the_shown_family() -> None:
    from visindigo.tui.workbench import Workbench

    center = Center()
    root = conversation(center, [("q1", "a1"), ("q2", "a2")])
    set_label(root, 1, "Best answer")
    workbench = Workbench(center, dialog=root)
    workbench.refresh_tree(root.id)
    hits = workbench.search("#best")
    assert [(h.dialog_id, h.message_index, h.snippet) for h in hits][:1] == [(root.id, 1, "#Best answer")]
    assert workbench.search("nothing-like-it") == []


def test_dialog_search_finds_labels_of_other_families_once_each() -> None:
    from visindigo.tui.workbench import Workbench

    center = Center()
    other = conversation(center, [("q1", "a1"), ("q2", "a2")])
    set_label(other, 1, "best answer")
    branch = regenerate(center, other, 3)  # a branch: a copy of the labelled answer
    assert branch is not None
    shown = conversation(center, [("x", "y")])
    set_label(shown, 1, "best guess")
    workbench = Workbench(center, dialog=shown)
    workbench.refresh_tree(shown.id)
    hits = [(h.dialog_id, h.message_index, h.snippet) for h in workbench.search("#best")]
    assert hits[0] == (shown.id, 1, "#best guess")  # the shown family first
    assert hits[1][0] in (other.id, branch.id) and hits[1][1:] == (1, "#best answer")  # the newest copy
    assert [h[2] for h in hits].count("#best answer") == 1  # the other copy in the same family is not listed again


def test_other_families_labels_are_searched_only_for_a_word_with_a_hash() -> None:
    from visindigo.tui.workbench import Workbench

    center = Center()
    other = conversation(center, [("q1", "a1")])
    set_label(other, 1, "keeper")
    shown = conversation(center, [("x", "y")])
    workbench = Workbench(center, dialog=shown)
    workbench.refresh_tree(shown.id)
    assert [h.snippet for h in workbench.search("#keeper")] == ["#keeper"]
    assert workbench.search("keeper") == []  # no mark: the full-text search only (the scan is for '#')
