"""Regenerate and edit make branches that show up in the tree; ◀ n/m ▶ and the tree keys move between them."""

from __future__ import annotations

from textual.widgets import Markdown

from tests.tui.helpers import answer, main_screen, make_app, settle, type_text
from visindigo.engine import Role
from visindigo.tui.chat.message_view import AlternativeSwitch
from visindigo.tui.common.confirm import ConfirmScreen
from visindigo.tui.main.dialog_tree import when_label


async def _ask(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    await type_text(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def test_regenerate_opens_and_runs_a_new_branch_nested_in_the_tree() -> None:
    app = make_app([answer("first answer"), answer("second answer")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "question")
        original = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        branch = screen.dialog
        assert branch is not original
        assert branch.branch_from_id == original.id
        assert [m.content for m in branch.messages] == ["question", "second answer"]
        assert [m.content for m in original.messages] == ["question", "first answer"]  # nothing deleted
        node = screen.sidebar.dialog_tree.node_for(branch.id)
        assert node is not None and node.parent is not None and node.parent.data == original.id
        # the number and what differs (when it was made) first: a long title is cut at the sidebar's edge
        made = when_label(branch.created_at)
        assert node.label.plain == f"② {made} · question"
        view = screen.pane.view_for(1)
        assert view is not None and view.alternatives == (2, 2)
        assert view.query_one(AlternativeSwitch) is not None


async def test_stepping_through_alternatives_at_the_point_where_branches_part() -> None:
    app = make_app([answer("one"), answer("two"), answer("three")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "question")
        first = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        second = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        third = screen.dialog
        assert screen.pane.view_for(1).alternatives == (3, 3)  # type: ignore[union-attr]
        await pilot.press("ctrl+o")  # the messages
        await pilot.press("left")  # cursor is on the last message: step back
        await pilot.pause()
        assert screen.dialog is second
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await pilot.press("left")
        await pilot.pause()
        assert screen.dialog is first
        assert screen.pane.view_for(1).query_one(Markdown).source == "one"  # type: ignore[union-attr]
        await pilot.press("left")  # wraps around
        await pilot.pause()
        assert screen.dialog is third
        await pilot.press("right")
        await pilot.pause()
        assert screen.dialog is first


async def test_clicking_the_arrows_steps_too() -> None:
    app = make_app([answer("one"), answer("two")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "question")
        first = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        switch = screen.pane.view_for(1).query_one(AlternativeSwitch)  # type: ignore[union-attr]
        await pilot.click(switch.query_one(".previous"))
        await pilot.pause()
        assert screen.dialog is first


async def test_the_drawer_follows_the_alternative_opened_from_a_question() -> None:
    """Stepping at an edited question opens another dialog: the drawer must show that dialog's reasoning (the
    answer to the question under the cursor), not keep the reasoning of the dialog left behind."""
    app = make_app([answer("a1", "thought one"), answer("a2", "thought two")])
    async with app.run_test(size=(130, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "first")
        first = screen.dialog
        await pilot.press("alt+e", "space", "x", "enter")
        await settle(pilot)
        assert screen.dialog is not first and screen.drawer.text == "thought two"
        await pilot.press("ctrl+o", "up")
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 0
        assert screen.drawer.text == "thought two"  # on the question: the reasoning of its answer
        await pilot.press("left")
        await pilot.pause()
        assert screen.dialog is first and screen.pane.cursor is not None and screen.pane.cursor.index == 0
        assert screen.drawer.text == "thought one"


async def test_editing_an_earlier_question_makes_a_branch_from_that_point() -> None:
    app = make_app([answer("a1"), answer("a2"), answer("edited answer")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "first")
        await _ask(pilot, "second")
        original = screen.dialog
        await pilot.press("ctrl+o")
        for _ in range(3):
            await pilot.press("up")
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 0
        await pilot.press("e")
        assert screen.composer.editing_index == 0
        assert screen.composer.text == "first"
        assert screen.focused is screen.composer.input
        await type_text(pilot, " (better)")
        await pilot.press("enter")
        await settle(pilot)
        branch = screen.dialog
        assert branch is not original and branch.branch_from_id == original.id
        assert [(m.role, m.content) for m in branch.messages] == [
            (Role.USER, "first (better)"),
            (Role.ASSISTANT, "edited answer"),
        ]
        assert original.message_count == 4
        assert screen.composer.editing_index is None
        assert screen.pane.view_for(0).alternatives == (2, 2)  # type: ignore[union-attr]


async def test_escape_abandons_an_edit_and_restores_the_draft() -> None:
    app = make_app([answer("a1")])
    async with app.run_test() as pilot:
        screen = main_screen(app)
        await _ask(pilot, "first")
        await type_text(pilot, "draft")
        await pilot.press("alt+e")
        assert screen.composer.editing_index == 0 and screen.composer.text == "first"
        await pilot.press("escape")
        assert screen.composer.editing_index is None
        assert screen.composer.text == "draft"
        assert len(screen.center.dialogs) == 1
        screen.composer.clear()
        await pilot.press("up")  # in an empty composer: edit the last question
        assert screen.composer.editing_index == 0


async def test_tree_keys_move_to_parent_child_and_siblings() -> None:
    app = make_app([answer("a"), answer("b"), answer("c")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "q")
        root = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        first_branch = screen.dialog
        await pilot.press("alt+up")
        await pilot.pause()
        assert screen.dialog is root
        await pilot.press("ctrl+r")
        await settle(pilot)
        second_branch = screen.dialog
        assert second_branch.branch_from_id == root.id
        await pilot.press("alt+left")
        await pilot.pause()
        assert screen.dialog is first_branch
        await pilot.press("alt+right")
        await pilot.pause()
        assert screen.dialog is second_branch
        await pilot.press("alt+up")
        await pilot.press("alt+down")
        await pilot.pause()
        assert screen.dialog is first_branch


async def test_deleting_asks_first_and_keeps_the_branches_reachable() -> None:
    app = make_app([answer("a"), answer("b")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "q")
        root = screen.dialog
        await pilot.press("ctrl+r")
        await settle(pilot)
        branch = screen.dialog
        await pilot.press("alt+up")
        await pilot.press("f8")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert screen.center.get_dialog(root.id) is root
        await pilot.press("f8")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert screen.center.get_dialog(root.id) is None
        assert branch.branch_from_id == ""  # moved up: now a root of its own
        tree = screen.sidebar.dialog_tree
        assert tree.node_for(branch.id) is not None
        assert tree.node_for(root.id) is None


async def test_opening_a_dialog_from_the_tree() -> None:
    app = make_app([answer("a"), answer("b")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "alpha")
        first = screen.dialog
        await pilot.press("ctrl+n")
        await _ask(pilot, "beta")
        second = screen.dialog
        assert second is not first
        tree = screen.sidebar.dialog_tree
        tree.focus()
        tree.move_cursor(tree.node_for(first.id))
        await pilot.press("enter")
        await pilot.pause()
        assert screen.dialog is first
        assert screen.pane.view_for(0) is not None


async def test_search_lists_hits_and_opens_the_dialog_at_the_message() -> None:
    app = make_app([answer("the kumquat is orange"), answer("b")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "fruit?")
        target = screen.dialog
        await pilot.press("ctrl+n")
        await _ask(pilot, "other")
        await pilot.press("ctrl+f")
        assert screen.focused is screen.sidebar.search_input
        await type_text(pilot, "kumquat")
        await pilot.pause()
        # what is typed is visible: the focused box keeps its one line (Input:focus used to add a tall border
        # that left no room for the text)
        box = screen.sidebar.search_input
        assert box.region.height == 1 and box.content_region.height == 1
        await pilot.press("enter")  # runs the search at once and moves to the list
        await pilot.pause()
        tree = screen.sidebar.dialog_tree
        assert len(tree.root.children) == 1
        assert "kumquat" in tree.root.children[0].label.plain
        await pilot.press("enter")
        await pilot.pause()
        assert screen.dialog is target
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        screen.sidebar.search_input.focus()
        await pilot.press("escape")
        await pilot.pause(0.4)
        assert screen.sidebar.query_text == ""
        assert len(screen.sidebar.dialog_tree.root.children) == 2
