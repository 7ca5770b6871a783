"""The divergence list: every point where a family's dialogs part, with the first words and model of each way."""

from __future__ import annotations

from pathlib import Path

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.compare.divergence import divergences, family_ids, first_words


def answer(dialog: Dialog, text: str, model: str, provider: str = "local") -> None:
    dialog.append_message(Message(Role.ASSISTANT, text, meta={"provider_id": provider, "model_id": model}))


def family(center: Center) -> dict[str, Dialog]:
    """root: q1 a1(qwen) q2 a2(qwen); regen of a1 by llama; comparison after q2 of root; an edit of q1."""
    root = center.create_dialog()
    root.append_message(Role.USER, "What is a monad, in one paragraph please?")
    answer(root, "A monad is a way to chain computations that carry context.", "qwen")
    root.append_message(Role.USER, "And a functor?")
    answer(root, "A functor maps functions over a structure.", "qwen")
    regen = center.branch_at(root, 1)
    answer(regen, "Think of a monad as a programmable semicolon.", "llama")
    left, right = center.branch_at(root, 3), center.branch_at(root, 3)
    answer(left, "Anything you can map over.", "claude-test", "claude")
    answer(right, "A container with fmap.", "gpt-4o", "openai")
    edit = center.branch_at(root, 0)
    edit.append_message(Role.USER, "What is a functor?")
    answer(edit, "A mapping between categories.", "qwen")
    tail = center.branch_at(regen, 2)  # continues regen without changing anything: no divergence
    tail.append_message(Role.USER, "thanks")
    return {"root": root, "regen": regen, "left": left, "right": right, "edit": edit, "tail": tail}


def test_every_point_where_the_family_parts_with_first_words_and_models() -> None:
    center = Center()
    dialogs = family(center)
    found = divergences(center, dialogs["root"].id)
    assert [d.index for d in found] == [0, 1, 3]

    edited = found[0]
    assert [(a.dialog_id, a.role, a.first_words) for a in edited.alternatives] == [
        (dialogs["root"].id, Role.USER, "What is a monad, in one paragraph please?"),
        (dialogs["edit"].id, Role.USER, "What is a functor?"),
    ]
    assert [a.model_id for a in edited.alternatives] == ["qwen", "qwen"]  # who answered after the question

    regenerated = found[1]
    assert [(a.dialog_id, a.model_id) for a in regenerated.alternatives] == [
        (dialogs["root"].id, "qwen"),
        (dialogs["regen"].id, "llama"),
    ]
    assert regenerated.alternatives[0].first_words == "A monad is a way to chain computations …"

    compared = found[2]
    assert [(a.dialog_id, a.provider_id, a.model_id) for a in compared.alternatives] == [
        (dialogs["root"].id, "local", "qwen"),
        (dialogs["left"].id, "claude", "claude-test"),
        (dialogs["right"].id, "openai", "gpt-4o"),
    ]
    # the shown dialog's way is marked at each point
    assert [d.current for d in found] == [0, 0, 0]


def test_the_list_is_the_same_from_any_member_and_marks_that_members_way() -> None:
    center = Center()
    dialogs = family(center)
    from_right = divergences(center, dialogs["right"].id)
    from_root = divergences(center, dialogs["root"].id)
    assert [(d.index, d.alternatives) for d in from_right] == [(d.index, d.alternatives) for d in from_root]
    assert [d.current for d in from_right] == [0, 0, 2]
    assert [d.current for d in divergences(center, dialogs["tail"].id)] == [0, 1, -1]
    assert set(family_ids(center, dialogs["tail"].id)) == {d.id for d in dialogs.values()}


def test_a_dialog_without_branches_has_no_divergence() -> None:
    center = Center()
    alone = center.create_dialog()
    alone.append_message(Role.USER, "hi")
    answer(alone, "hello", "qwen")
    assert divergences(center, alone.id) == []
    other = center.create_dialog()  # another family does not count
    other.append_message(Role.USER, "unrelated")
    assert divergences(center, alone.id) == []


def test_it_works_from_the_store_and_survives_a_cycle_in_branch_links(tmp_path: Path) -> None:
    center = Center.open(tmp_path / "home")
    dialogs = family(center)
    center.close()
    again = Center.open(tmp_path / "home")
    try:
        assert [d.index for d in divergences(again, dialogs["left"].id)] == [0, 1, 3]
    finally:
        again.close()
    looped = Center()
    a, b = looped.create_dialog(), looped.create_dialog()
    a.branch_from_id, b.branch_from_id = b.id, a.id
    assert isinstance(family_ids(looped, a.id), list)


def test_first_words_of_odd_messages() -> None:
    assert first_words(Message(Role.ASSISTANT, "one  two\nthree\x1b[31m four"), 3) == "one two three …"
    calls = '[{"id":"c1","type":"function","function":{"name":"get_time","arguments":"{}"}}]'
    assert first_words(Message(Role.ASSISTANT, "", tool_calls=calls)) == "(tool call get_time)"
    assert first_words(Message(Role.ASSISTANT, "", reasoning="hmm")) == "(reasoning only)"


def test_first_words_skip_bare_markdown_marks() -> None:
    assert first_words(Message(Role.ASSISTANT, "## Kyoto right now\n\n- **Temp:** 13 °C\n> quoted"), 5) == (
        "Kyoto right now **Temp:** 13 …"
    )
