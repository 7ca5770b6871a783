"""The timeline panel (alt+l), forks from any message (alt+h), tail forks (alt+n) and labels (alt+m) in the app."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, OptionList

from tests.tui.helpers import answer, main_screen, make_app, make_center, settle, type_text, wait_until
from visindigo.engine import Function, Role
from visindigo.engine.providers import FinishPart, TextPart, ToolCallPart
from visindigo.tui.history.screens import AskLineScreen, TimelineScreen


async def _ask(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def _open(pilot: Any, screen_type: type) -> Any:
    await pilot.pause()
    assert await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen_type))
    await pilot.pause()
    return pilot.app.screen


async def _label(pilot: Any, text: str) -> None:
    """alt+m, the label typed, enter: as a user labels the message under the cursor."""
    await pilot.press("alt+m")
    await _open(pilot, AskLineScreen)
    await type_text(pilot, text)
    await pilot.press("enter")
    await settle(pilot)


async def test_the_timeline_lists_questions_of_every_branch_filters_and_jumps() -> None:
    app = make_app([answer("a1"), answer("a2"), answer("a2 again")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "Plan 3 days in Kyoto")
        await _ask(pilot, "What about food")
        original = screen.dialog
        await pilot.press("ctrl+r")  # a branch with another answer to "What about food"
        await settle(pilot)
        assert screen.dialog is not original
        await pilot.press("alt+l")
        timeline = await _open(pilot, TimelineScreen)
        rows = [str(timeline.query_one(OptionList).get_option_at_index(i).prompt) for i in range(2)]
        assert len(timeline.shown) == 2  # the branch's question is the same message: listed once
        assert "Plan 3 days in Kyoto" in rows[0] and "①" in rows[0] and "What about food" in rows[1]
        await type_text(pilot, "kyoto")
        await pilot.pause()
        assert [e.first_words for e in timeline.shown] == ["Plan 3 days in Kyoto"]
        await pilot.press("enter")
        await settle(pilot)
        assert screen.dialog is original and screen.pane.cursor is not None and screen.pane.cursor.index == 0
        await pilot.press("ctrl+p")  # the palette opens it too
        await type_text(pilot, "timeline")
        await pilot.pause(0.3)
        await pilot.press("enter")
        again = await _open(pilot, TimelineScreen)
        assert len(again.shown) == 2


async def test_fork_from_the_answer_under_the_cursor_makes_a_branch_ending_there() -> None:
    app = make_app([answer("a1"), answer("a2")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "first")
        await _ask(pilot, "second")
        original = screen.dialog
        await pilot.press("ctrl+o")  # the messages: the cursor on the last answer
        await pilot.press("up", "up")
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await pilot.press("alt+h")
        await settle(pilot)
        branch = screen.dialog
        assert branch is not original and branch.branch_from_id == original.id
        assert [m.content for m in branch.messages] == ["first", "a1"]
        assert original.message_count == 4
        assert screen.sidebar.dialog_tree.node_for(branch.id) is not None


class Weather(Function):
    id = "weather"
    name = "weather"
    description = "the weather of a city"
    parameter_schema = {"type": "object", "properties": {"city": {"type": "string"}}}

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"city": arguments.get("city"), "temperature": 12}


async def test_fork_from_a_tool_result_or_a_tool_call_under_the_cursor() -> None:
    call = ToolCallPart("call_1", "weather", '{"city": "Kyoto"}')
    center = make_center([[TextPart("Let me look"), call, FinishPart("tool_calls")], answer("It is 12 degrees")])
    center.add_function(Weather())
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "weather in Kyoto?")
        original = screen.dialog
        assert [m.role for m in original.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
        await pilot.press("ctrl+o", "up")  # from the last answer onto the tool's result
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 2
        await pilot.press("alt+h")
        await settle(pilot)
        from_result = screen.dialog
        assert from_result is not original and from_result.branch_from_id == original.id
        assert from_result.messages == original.messages[:3] and from_result.messages[-1].role is Role.TOOL
        await screen.open_dialog(original)
        await settle(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        await pilot.press("up", "up", "up")  # the first up puts the cursor on the last answer, then up to the call
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await pilot.press("alt+h")
        await settle(pilot)
        from_call = screen.dialog
        assert from_call not in (original, from_result) and from_call.branch_from_id == original.id
        assert from_call.messages == original.messages[:2] and from_call.messages[-1].tool_calls
        assert original.message_count == 4


async def test_tail_fork_asks_how_many_turns_and_opens_the_new_dialog() -> None:
    app = make_app([answer("a1"), answer("a2"), answer("a3")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        for question in ("q1", "q2", "q3"):
            await _ask(pilot, question)
        original = screen.dialog
        await pilot.press("alt+n")
        ask = await _open(pilot, AskLineScreen)
        box = ask.query_one(Input)
        assert box.value == "2"
        box.value = "9"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AskLineScreen)  # out of range: said, and the box kept
        box.value = "1"
        await pilot.press("enter")
        await settle(pilot)
        fresh = screen.dialog
        assert fresh is not original and [m.content for m in fresh.messages] == ["q3", "a3"]
        assert fresh.message_at(0).meta["forked_from"]["dialog_id"] == original.id
        # it points back: its first message says where it came from, and alt+up goes there
        first = screen.pane.view_for(0)
        assert first is not None
        said = str(first.query_one(".meta .status").render())
        assert f"tail fork of “{original.title}”, message 5 · alt+↑ goes there" in said, said
        await pilot.press("alt+up")
        await settle(pilot)
        assert screen.dialog is original
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 4  # at the question taken first


async def test_a_label_is_asked_kept_on_the_message_and_shown_and_found_in_the_timeline() -> None:
    app = make_app([answer("a1"), answer("a2")])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "budget please")
        await _ask(pilot, "and hotels")
        await pilot.press("ctrl+o", "up", "up", "up")
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 0
        await _label(pilot, "money")
        assert screen.dialog.message_at(0).meta["label"] == "money"
        assert screen.dialog.message_at(0).role is Role.USER
        await pilot.pause()
        node = screen.sidebar.dialog_tree.node_for(screen.dialog.id)
        assert node is not None and node.label.plain.endswith("#money")  # the tree shows it too
        screen.sidebar.mark(screen.dialog.id)  # a run's start or end redraws the dialog's label: it keeps the label
        await pilot.pause()
        assert node.label.plain.endswith("#money")
        await pilot.press("alt+l")
        timeline = await _open(pilot, TimelineScreen)
        assert "#money" in str(timeline.query_one(OptionList).get_option_at_index(0).prompt)
        await type_text(pilot, "#money")
        await pilot.pause()
        assert [e.first_words for e in timeline.shown] == ["budget please"]


async def test_a_labelled_tool_call_is_in_the_timeline_under_its_question_and_enter_goes_to_it() -> None:
    call = ToolCallPart("call_1", "weather", '{"city": "Kyoto"}')
    center = make_center([[call, FinishPart("tool_calls")], answer("It is 12 degrees")])
    center.add_function(Weather())
    app = make_app(center=center)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "weather in Kyoto?")
        await pilot.press("ctrl+o", "up", "up")  # from the last answer past the result onto the call
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await _label(pilot, "the call")
        await pilot.press("down", "down")  # the cursor elsewhere, so the jump below has somewhere to go
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 3
        await pilot.press("alt+l")
        timeline = await _open(pilot, TimelineScreen)
        options = timeline.query_one(OptionList)
        rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert len(rows) == 2 and "weather in Kyoto?" in rows[0]
        assert "↳ tool call: weather" in rows[1] and rows[1].endswith("#the call")
        assert "1 question and 1 labelled message" in str(timeline.query_one("#timeline-count").render())
        await type_text(pilot, "#the call")
        await pilot.pause()
        assert [(e.kind, e.index) for e in timeline.shown] == [("tool call", 1)]
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen and screen.pane.cursor is not None and screen.pane.cursor.index == 1


async def test_ctrl_f_finds_a_label_and_opens_the_dialog_at_that_message() -> None:
    """From another dialog too: a label is searched in every dialog, the shown family's first."""
    app = make_app([answer("a1"), answer("a2"), answer("elsewhere")])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main_screen(app)
        await _ask(pilot, "budget please")
        await _ask(pilot, "and hotels")
        labelled = screen.dialog
        await pilot.press("ctrl+o", "up", "up")  # onto the first answer
        await pilot.pause()
        assert screen.pane.cursor is not None and screen.pane.cursor.index == 1
        await _label(pilot, "cheapest")
        await pilot.press("ctrl+n")  # another dialog: the labelled one is not the shown family
        await settle(pilot)
        await _ask(pilot, "something else")
        assert screen.dialog is not labelled
        await pilot.press("ctrl+f")
        await type_text(pilot, "#cheapest")  # a word in no message: only the label has it
        await pilot.press("enter")
        await pilot.pause()
        tree = screen.sidebar.dialog_tree
        assert len(tree.root.children) == 1 and "#cheapest" in tree.root.children[0].label.plain
        await pilot.press("enter")
        await settle(pilot)
        assert screen.dialog is labelled and screen.pane.cursor is not None and screen.pane.cursor.index == 1
