"""Branches are told apart: an edited question names its branch, a regenerated one shows what differs (the
model when it changed, and when it was made) beside its number, a rename wins, and the Markdown export says the
same."""

from __future__ import annotations

import time

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.branch_titles import branch_difference
from visindigo.engine.export import export_markdown
from visindigo.tui.main.dialog_tree import when_label
from visindigo.tui.workbench import branches


def _answered(center: Center, model: str = "model-a") -> Dialog:
    dialog = center.create_dialog()
    dialog.title = "S-Tab"
    dialog.model_id = model
    dialog.append_message(Role.USER, "What does S-Tab do?")
    dialog.append_message(Message(Role.ASSISTANT, "It moves back.", meta={"model_id": model}))
    return dialog


def test_an_edited_question_names_its_branch_and_a_regenerated_one_keeps_the_title_with_what_differs() -> None:
    center = Center()
    dialog = _answered(center)
    edited = branches.edit(center, dialog, 0, "And what does Tab do in a form?")
    assert edited.title == "And what does Tab do in a form?"
    assert branch_difference(edited, dialog) is None  # its own title tells it apart
    dialog.model_id = "model-b"  # f2 picked another model, then ctrl+r
    again = branches.regenerate(center, dialog)
    assert again is not None and again.title == "S-Tab"
    assert dialog.model_id == "model-a"  # the dialog keeps the model that answered it
    difference = branch_difference(again, dialog)
    assert difference is not None and difference.model == "model-b"
    again.append_message(Message(Role.ASSISTANT, "It goes back a field.", meta={"model_id": "model-b"}))
    same_model = branches.regenerate(center, again)
    assert same_model is not None
    difference = branch_difference(same_model, again)
    assert difference is not None and difference.model == "" and difference.created_at == same_model.created_at
    same_model.title = "Renamed by me"
    assert branch_difference(same_model, again) is None  # renaming wins


def test_when_label_is_the_time_today_and_the_date_otherwise() -> None:
    now = time.mktime((2026, 12, 1, 16, 30, 0, 0, 0, -1))
    assert when_label(now - 60, now) == "16:29"
    assert when_label(now - 3 * 86400, now) == "28 Nov 16:30"


def test_the_markdown_export_heads_a_regenerated_branch_with_what_differs() -> None:
    center = Center()
    dialog = _answered(center)
    dialog.model_id = "model-b"
    again = branches.regenerate(center, dialog)
    assert again is not None
    edited = branches.edit(center, dialog, 0, "Tab instead?")
    text = export_markdown(center, dialog.id, with_branches=True)
    sections = text.split("\n---\n")
    assert sections[0].startswith("# S-Tab\n")
    assert any(s.strip().startswith("# S-Tab · another answer · model-b · ") for s in sections)
    assert any(s.strip().startswith("# Tab instead?\n") for s in sections)
    assert f"- Branch of: S-Tab (`{dialog.id[:8]}`), another answer" in text
    assert edited.title in text


async def test_the_tree_shows_the_model_and_time_beside_the_number_and_the_edited_question_as_the_title() -> None:
    app = make_app([answer("first"), answer("second"), answer("third")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await type_text(pilot, "question one")
        await pilot.press("enter")
        await settle(pilot)
        original = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        regenerated = screen.dialog
        tree = screen.sidebar.dialog_tree
        node = tree.node_for(regenerated.id)
        assert node is not None
        assert str(node.label.plain) == f"② {when_label(regenerated.created_at)} · question one"
        await screen.edit_message(0, "a better question")
        await settle(pilot)
        edited = screen.dialog
        node = tree.node_for(edited.id)
        assert node is not None and str(node.label.plain) == "③ a better question"
        assert original.title == "question one"
