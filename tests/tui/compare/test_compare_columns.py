"""Comparing models side by side, as the user sees it: start, stream, pick, leave, cancel, fail, blind, tabs.

Every test runs the real app against the loopback LLM server (tests/llm_server.py) speaking OpenAI SSE; each
model of the provider answers from its own script, so a column's text says which model wrote it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.binding import Binding
from textual.pilot import Pilot

from tests.llm_server import LLMServer
from tests.tui.compare_host import (
    MODELS,
    column_text,
    compare_screen,
    every_model,
    failing,
    make_app,
    scripted_center,
    streamed,
    wait_until,
    words,
)
from tests.tui.helpers import main_screen
from visindigo.engine import Center, Role
from visindigo.engine.compare import ModelChoice
from visindigo.tui.compare import flow as compare_flow
from visindigo.tui.compare.screen import CompareScreen
from visindigo.tui.main.screen import MainScreen


def all_done(columns: Any) -> bool:
    """Every column's run has started and ended (runs start once the comparison is on screen)."""
    columns = getattr(columns, "columns", columns)
    return all(column.outcome for column in columns)


async def comparing(pilot: Pilot[Any], main: MainScreen, count: int, **kwargs: Any) -> CompareScreen:
    """Start a comparison of the first `count` models and return its screen once it is up."""
    start(main, count, **kwargs)
    await wait_until(pilot, lambda: type(main.app.screen).__name__ == "CompareScreen")
    return compare_screen(main.app)


def start(main: MainScreen, count: int, **kwargs: Any) -> None:
    models = [ModelChoice("lab", model) for model in MODELS[:count]]
    main.in_worker(compare_flow.compare(main.app, main, models, **kwargs), group="compare")


async def test_a_question_streams_into_every_column_and_the_pick_opens_on_the_main_screen(
    llm_server: LLMServer,
) -> None:
    replies = every_model(count=30, delay=0.05)
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Which is best?")
        columns = screen.order
        assert [c.model for c in columns] == ["m-alpha", "m-beta", "m-gamma"]
        # mid-stream: every column streams its own model's answer at the same time
        await wait_until(pilot, lambda: all("word3" in column_text(c) for c in columns))
        assert all(c.running for c in columns)
        for column, model in zip(columns, MODELS, strict=False):
            text = column_text(column)
            assert text.startswith(f"{model}-word0") and "word29" not in text
            assert all(other not in text for other in MODELS if other != model)
        assert "answering" in str(screen.hint.render())
        # side by side at 160 columns: all three shown, each a third of the width
        assert screen.has_class("-side") and all(c.display and c.region.width > 40 for c in columns)
        await wait_until(pilot, lambda: all_done(columns))
        await pilot.pause()
        for column, model in zip(columns, MODELS, strict=False):
            assert column.outcome == "finished"
            assert column.dialog.last_message.content == "".join(f"{model}-word{n} " for n in range(30))
            figures = column.header.figures
            assert figures.state == "finished" and (figures.input_tokens, figures.output_tokens) == (20, 12)
            assert figures.first_token > 0
        assert columns[0].header.figures.cost == (20 * 1.0 + 12 * 2.0) / 1_000_000  # m-alpha has prices
        assert columns[1].header.figures.cost is None
        assert "$0.0000" in columns[0].header.content.plain and "$" not in columns[1].header.content.plain
        # each branch asked its own model, with the same question
        asked = [r.json for r in llm_server.requests if r.method == "POST"]
        assert sorted(a["model"] for a in asked) == MODELS[:3]
        assert all(a["messages"][-1] == {"role": "user", "content": "Which is best?"} for a in asked)
        await pilot.press("2")
        await wait_until(pilot, lambda: app.screen is main)
        await pilot.pause()
        chosen = columns[1].dialog
        assert main.dialog is chosen
        [pick] = main.center.picks()
        assert pick.winner.dialog_id == chosen.id and not pick.blind
        assert [loser.model_id for loser in pick.losers] == ["m-alpha", "m-gamma"]
        assert main.pane.dialog is chosen
        # the others are its alternatives at the answer: ◀ 2/3 ▶ in creation order
        assert main.workbench.positions(chosen) == {1: (2, 3)}
        asked_in = main.workbench.find(chosen.branch_from_id)
        assert asked_in is not None and [m.role for m in asked_in.messages] == [Role.USER]
        assert all(c.dialog.branch_from_id == asked_in.id for c in columns)


async def test_blind_columns_hide_the_models_in_a_random_order_until_the_pick_reveals_them(
    llm_server: LLMServer,
) -> None:
    import random

    replies = every_model(count=6, delay=0.02)
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 4, question="Blind?", blind=True, rng=random.Random(7))
        shuffled = [column.dialog.model_id for column in screen.order]
        assert sorted(shuffled) == sorted(MODELS) and shuffled != MODELS  # this seed moves them
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.pause()
        # the screen names no model anywhere: labels A-D by position, the text of each column is its own
        assert [c.label for c in screen.order] == ["A", "B", "C", "D"]
        shown = " ".join(c.header.content.plain for c in screen.order) + str(screen.hint.render())
        shown += screen.tabs.content.plain
        assert not any(model in shown for model in MODELS) and "hidden until you pick" in shown
        # nor a cost: the prices in the config (m-alpha's only here) would tell that model apart
        assert not any("$" in c.header.content.plain for c in screen.order)
        third = screen.order[2]
        await pilot.press("3")
        await pilot.pause()
        # the pick is recorded as blind, then the reveal: every header names its model, the pick is marked
        picks = main.center.picks()
        assert len(picks) == 1 and picks[0].blind and picks[0].winner.dialog_id == third.dialog.id
        assert picks[0].winner.model_id == third.dialog.model_id
        assert {loser.dialog_id for loser in picks[0].losers} == {c.dialog.id for c in screen.columns} - {
            third.dialog.id
        }
        assert app.screen is screen and third.picked
        for column in screen.order:
            assert column.dialog.model_id in column.header.content.plain
        assert "★ picked" in third.header.content.plain
        alpha = next(c for c in screen.order if c.dialog.model_id == "m-alpha")
        assert "$0.0000" in alpha.header.content.plain  # revealed: the cost is shown again
        assert f"You picked C: {third.dialog.model_id}" in str(screen.hint.render())
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is main)
        assert main.dialog is third.dialog


async def test_revealing_before_the_pick_makes_it_not_blind_and_blind_mode_is_kept_for_the_next(
    llm_server: LLMServer,
) -> None:
    replies = every_model(count=3, delay=0.01)
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="Peek?", blind=True)
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.press("b")  # reveal
        assert [c.label for c in screen.order] == ["1", "2"]
        assert all(c.dialog.model_id in c.header.content.plain for c in screen.order)
        await pilot.press("b")  # hidden again: out of sight, but the pick is no longer blind
        assert [c.label for c in screen.order] == ["A", "B"]
        assert all(c.dialog.model_id not in c.header.content.plain for c in screen.order)
        await pilot.press("p")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is main)
        picks = main.center.picks()
        assert len(picks) == 1 and not picks[0].blind
        # blind mode was on when the user left: the next comparison starts blind
        await pilot.press("ctrl+n")
        await pilot.pause()
        again = await comparing(pilot, main, 2, question="Again?")
        assert again is not screen and again.blind and again.comparison.blind


async def test_below_120_columns_the_columns_are_tabs_and_tab_cycles_them_at_80x24(llm_server: LLMServer) -> None:
    from tests.llm_server import openai_stream

    def thinking(model: str) -> Any:
        return openai_stream([f"{model} answers."], reasoning=[f"{model} thinks hard. "], usage=(5, 3))

    replies = {model: (lambda m=model: thinking(m)) for model in MODELS}
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Tabs?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.pause()
        assert screen.has_class("-tabs") and screen.tabs.display
        # one column at a time, the whole width; the tab strip names all three and marks the shown one
        shown = [c for c in screen.order if c.display]
        assert shown == [screen.order[0]] and shown[0].region.width >= 78
        strip = screen.tabs.content.plain
        assert all(f" {n} {model} " in strip for n, model in zip((1, 2, 3), MODELS, strict=False))
        assert "tab: next column" in strip
        assert app.focused is screen.order[0].pane
        await pilot.press("ctrl+g")  # the drawer shows the focused column's reasoning
        await pilot.pause()
        assert screen.drawer.display and screen.drawer.text == "m-alpha thinks hard. "
        await pilot.press("tab")
        await pilot.pause()
        assert [c for c in screen.order if c.display] == [screen.order[1]]
        assert app.focused is screen.order[1].pane and screen.active == 1
        assert screen.drawer.text == "m-beta thinks hard. "
        assert column_text(screen.order[1]) == "m-beta answers."
        await pilot.press("tab", "tab")  # wraps around
        await pilot.pause()
        assert screen.active == 0 and app.focused is screen.order[0].pane
        await pilot.press("shift+tab")
        assert screen.active == 2
        await pilot.press("p")  # picks the shown tab
        await wait_until(pilot, lambda: app.screen is main)
        assert main.dialog is screen.order[2].dialog


async def test_a_failing_column_shows_its_failure_while_the_others_finish(llm_server: LLMServer) -> None:
    replies = {
        "m-alpha": lambda: streamed("m-alpha", count=10, delay=0.03),
        "m-beta": lambda: failing("the model is overloaded, try later"),
        "m-gamma": lambda: streamed("m-gamma", count=10, delay=0.03),
    }
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Fail one?")
        alpha, beta, gamma = screen.order
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.pause()
        assert (alpha.outcome, beta.outcome, gamma.outcome) == ("finished", "failed", "finished")
        assert beta.header.figures.state == "failed" and "✗ failed" in beta.header.content.plain
        notice = beta.pane.query("Notice").first()
        assert "overloaded" in str(notice.render())
        assert column_text(alpha).endswith("m-alpha-word9 ") and column_text(gamma).endswith("m-gamma-word9 ")
        # the column says it; the main screen behind does not add "a run in another dialog failed"
        assert not any("another dialog" in notification.message for notification in app._notifications)
        await pilot.press("2")  # a failed column cannot be picked
        await pilot.pause()
        assert app.screen is screen and screen.picked is None
        await pilot.press("3")
        await wait_until(pilot, lambda: app.screen is main)
        assert main.dialog is gamma.dialog


async def test_a_pick_the_store_cannot_write_still_opens_and_says_it_was_not_saved(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    from tests.engine.compare.test_comparison import failing_pick_writes

    center = scripted_center(llm_server, every_model(count=4, delay=0.01), center=Center.open(tmp_path / "home"))
    app = make_app(center)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            main = main_screen(app)
            screen = await comparing(pilot, main, 2, question="Full disk?")
            await wait_until(pilot, lambda: all_done(screen.columns))
            failing_pick_writes(center)
            await pilot.press("2")  # before the fix: sqlite3.IntegrityError out of the key handler stopped the app
            await wait_until(pilot, lambda: app.screen is main)
            assert main.dialog is screen.order[1].dialog
            assert [pick.winner.dialog_id for pick in center.picks()] == [screen.order[1].dialog.id]
            warnings = [n.message for n in app._notifications if n.severity == "warning"]
            assert any("could not be saved" in message and "disk is full" in message for message in warnings)
    finally:
        center.close()


async def test_ctrl_r_runs_a_failed_column_again_and_its_answer_can_be_picked(llm_server: LLMServer) -> None:
    attempts: list[int] = []

    def beta() -> Any:
        attempts.append(1)
        return failing("overloaded") if len(attempts) == 1 else streamed("m-beta", count=3, delay=0.01)

    replies = {"m-alpha": lambda: streamed("m-alpha", count=3, delay=0.01), "m-beta": beta}
    app = make_app(scripted_center(llm_server, replies, max_retries=0))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="Again?")
        _alpha, second = screen.order
        await wait_until(pilot, lambda: all_done(screen.columns))
        assert second.outcome == "failed"
        await pilot.press("tab", "ctrl+r")
        await wait_until(pilot, lambda: second.outcome == "finished")
        assert column_text(second).startswith("m-beta-word0")
        # the first column's answer now has an alternative (issue 25 §14: its ◀ n/m ▶ stayed as before the retry)
        await wait_until(pilot, lambda: _alpha.pane.views[-1].alternatives == (1, 2))
        await pilot.press("2")
        await wait_until(pilot, lambda: app.screen is main)
        assert main.dialog is second.dialog
        [pick] = main.center.picks()
        assert pick.winner.model_id == "m-beta" and [loser.model_id for loser in pick.losers] == ["m-alpha"]


async def test_x_cancels_the_focused_column_esc_cancels_all_and_leaving_keeps_every_branch(
    llm_server: LLMServer,
) -> None:
    replies = every_model(count=200, delay=0.05)
    app = make_app(scripted_center(llm_server, replies))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Cancel?")
        first, second, third = screen.order
        await wait_until(pilot, lambda: all("word2" in column_text(c) for c in screen.columns))
        await pilot.press("tab")  # the second column
        await pilot.press("x")
        await wait_until(pilot, lambda: not second.running)
        assert second.outcome == "cancelled" and first.running and third.running
        assert "■ cancelled" in second.header.content.plain
        # issue 25 §14: no usage comes for a cancelled round; its header kept "out 0" while its words were shown
        shown_out = int(second.header.content.plain.split(" out ", 1)[1].split()[0])
        assert shown_out >= 2 and "word" in column_text(second)
        await pilot.press("escape")
        await wait_until(pilot, lambda: all_done(screen.columns))
        assert [c.outcome for c in screen.order] == ["cancelled"] * 3
        assert app.screen is screen  # esc cancelled; it did not leave yet
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is main)
        # every answer so far is kept (marked interrupted), each in its branch; the first one is shown
        assert main.dialog is first.dialog
        for column in screen.order:
            answer = column.dialog.last_message
            assert answer.role is Role.ASSISTANT and answer.content and "word" in answer.content
        assert main.workbench.positions(first.dialog) == {1: (1, 3)}


async def test_each_column_asks_for_its_own_tool_calls_one_at_a_time(llm_server: LLMServer) -> None:
    from tests.llm_server import openai_stream, openai_tool_call
    from tests.tui.main.test_main_features import Dangerous
    from visindigo.tui.common.approval import ApprovalScreen

    asked: dict[str, int] = {}

    def tool_then_text(model: str) -> Any:
        asked[model] = asked.get(model, 0) + 1
        if asked[model] == 1:
            call = openai_tool_call(f"call-{model}", "wipe", ['{"path": "/tmp/', model + '"}'])
            return openai_stream(tool_calls=call, finish="tool_calls")
        return openai_stream([f"{model} is done."])

    replies = {model: (lambda m=model: tool_then_text(m)) for model in MODELS}
    center = scripted_center(llm_server, replies)
    tool = Dangerous()
    center.add_function(tool)
    app = make_app(center)
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        start(main, 2, question="Wipe?")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = main.app.screen_stack[-2]
        columns = compare_screen_of(screen)
        first_request = app.screen.request
        asking = next(c for c in columns if c.dialog.id == first_request.dialog_id)
        other = next(c for c in columns if c is not asking)
        # the question names the column; that column comes to the front and its header says it asks
        assert app.screen.title_text == f"Column {asking.label}: allow this tool call?"
        assert asking.header.figures.state == "approval" and asking.active
        assert other.header.figures.state != "approval"
        await pilot.press("y")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.request.dialog_id == other.dialog.id
        )
        assert app.screen.title_text == f"Column {other.label}: allow this tool call?"
        await pilot.press("n")
        await wait_until(pilot, lambda: all_done(columns))
        await pilot.pause()
        allowed = asking.dialog.messages
        assert tool.calls == [{"path": f"/tmp/{asking.dialog.model_id}"}]
        assert [m.role for m in allowed][-3:] == [Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
        assert "wiped" in allowed[-2].content and "denied" in other.dialog.messages[-2].content
        assert allowed[-1].content == f"{asking.dialog.model_id} is done."


def compare_screen_of(screen: Any) -> list[Any]:
    from visindigo.tui.compare.screen import CompareScreen

    assert isinstance(screen, CompareScreen)
    return list(screen.order)


async def test_a_provider_that_answers_one_at_a_time_makes_the_second_column_wait_its_turn(
    llm_server: LLMServer,
) -> None:
    replies = every_model(count=30, delay=0.05)
    app = make_app(scripted_center(llm_server, replies, max_concurrent_runs=1))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="One at a time?")
        first, second = screen.order
        await wait_until(pilot, lambda: "word3" in column_text(first))
        await wait_until(pilot, lambda: second.header.figures.state == "waiting", timeout=2)
        assert "waits its turn at Lab" in second.header.content.plain
        assert column_text(second) == "" and len([r for r in llm_server.requests if r.method == "POST"]) == 1
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.pause()
        assert first.outcome == second.outcome == "finished"
        assert column_text(second).endswith("m-beta-word29 ")
        assert second.header.figures.state == "finished"


async def test_alt_c_takes_the_composers_question_to_the_models_chosen_in_the_compare_picker(
    llm_server: LLMServer,
) -> None:
    from tests.tui.helpers import type_text
    from visindigo.engine.compare.last_set import last_set, remember_set
    from visindigo.tui.compare.picker import ComparePickerScreen

    replies = every_model(count=3, delay=0.01)
    center = scripted_center(llm_server, replies)
    remember_set(center, [ModelChoice("lab", "m-beta"), ModelChoice("lab", "m-delta")])
    app = make_app(center)
    async with app.run_test(size=(120, 40)) as pilot:
        main = main_screen(app)
        await type_text(pilot, "why not")
        await pilot.press("alt+c")
        await wait_until(pilot, lambda: isinstance(app.screen, ComparePickerScreen))
        await pilot.press("enter")  # the last set is chosen already
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CompareScreen")
        screen = compare_screen(app)
        assert [c.dialog.model_id for c in screen.order] == ["m-beta", "m-delta"]
        await wait_until(pilot, lambda: all_done(screen))
        assert all(c.dialog.message_at(0).content == "why not" for c in screen.columns)
        assert main.composer.text == ""  # the question went to the models
        await pilot.press("escape")  # leave without a pick: the first branch opens
        await wait_until(pilot, lambda: app.screen is main)
        assert main.dialog is screen.columns[0].dialog and main.center.picks() == []
        assert last_set(center) == [ModelChoice("lab", "m-beta"), ModelChoice("lab", "m-delta")]
        # with nothing typed and the cursor on an answer, the models answer it again; f2 offers compare too
        main.pane.focus()  # the cursor goes to the last message, the answer
        await pilot.pause()
        assert main.pane.cursor is not None and main.pane.cursor.index == 1
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("alt+c")
        await wait_until(pilot, lambda: isinstance(app.screen, ComparePickerScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CompareScreen" and app.screen is not screen)
        again = compare_screen(app)
        await wait_until(pilot, lambda: all_done(again))
        first = screen.columns[0].dialog
        assert all(c.dialog.branch_from_id == first.id for c in again.columns)
        assert all(c.dialog.message_count == 2 and c.dialog.message_at(0).content == "why not" for c in again.columns)


async def test_on_a_one_at_a_time_provider_cancelling_the_running_column_lets_the_waiting_one_run(
    llm_server: LLMServer,
) -> None:
    replies = every_model(count=200, delay=0.05)
    replies["m-beta"] = lambda: streamed("m-beta", count=3, delay=0.01)
    replies["m-gamma"] = lambda: streamed("m-gamma", count=3, delay=0.01)
    app = make_app(scripted_center(llm_server, replies, max_concurrent_runs=1))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Cancel the one that holds the server?")
        first, second, third = screen.order
        await wait_until(pilot, lambda: "word3" in column_text(first))
        await wait_until(pilot, lambda: third.header.figures.state == "waiting")
        await pilot.press("tab", "tab", "x")  # the third, while it waits: its turn never comes
        await wait_until(pilot, lambda: third.outcome == "cancelled")
        assert third.header.figures.state == "cancelled" and "waits" not in third.header.content.plain
        await pilot.press("tab", "x")  # the first, which holds the server's one slot
        await wait_until(pilot, lambda: second.outcome == "finished")
        assert first.outcome == "cancelled" and column_text(second).endswith("m-beta-word2 ")
        assert not any(c.running for c in screen.columns)
        assert "picks the answer" in str(screen.hint.render())
        await pilot.press("2")
        await wait_until(pilot, lambda: app.screen is main)
        [pick] = main.center.picks()
        assert pick.winner.model_id == "m-beta" and [loser.model_id for loser in pick.losers] == ["m-alpha"]


async def test_leaving_without_a_pick_keeps_every_branch_and_answer_in_the_store(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    center = scripted_center(llm_server, every_model(count=4, delay=0.01), center=Center.open(home))
    app = make_app(center)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            main = main_screen(app)
            screen = await comparing(pilot, main, 3, question="Keep them all?")
            await wait_until(pilot, lambda: all_done(screen.columns))
            branches = [column.dialog.id for column in screen.columns]
            asked_in = screen.columns[0].dialog.branch_from_id
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is main)
            assert main.dialog.id == branches[0]
    finally:
        center.close()
    again = Center.open(home)
    try:
        for dialog_id, model in zip(branches, MODELS, strict=False):
            dialog = again.get_dialog(dialog_id)
            assert dialog is not None and dialog.branch_from_id == asked_in
            assert [m.content for m in dialog.messages] == ["Keep them all?", "".join(words(model, 4))]
        assert again.picks() == []
    finally:
        again.close()


async def test_a_resource_attached_with_at_goes_with_the_compared_question_to_every_model(
    llm_server: LLMServer,
) -> None:
    from visindigo.engine.mcp.resources import ResourceContent

    app = make_app(scripted_center(llm_server, every_model(count=2, delay=0.01)))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        notes = ResourceContent("files", "file:///notes.txt", texts=(("file:///notes.txt", "the secret is 42"),))
        main.workbench.pending_resources[main.dialog.id] = [notes]
        screen = await comparing(pilot, main, 2, question="What is the secret?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        asked = [r.json for r in llm_server.requests if r.method == "POST"]
        assert len(asked) == 2
        for body in asked:  # before: the question went alone and the resource stayed pending for the next message
            assert "the secret is 42" in body["messages"][-1]["content"]
            assert body["messages"][-1]["content"].endswith("What is the secret?")
        assert main.workbench.pending_resources.get(screen.columns[0].dialog.branch_from_id) is None


async def test_separators_stand_between_the_columns_after_narrowing_to_tabs_and_widening_again(
    llm_server: LLMServer,
) -> None:
    """Issue 25 §14: `:last-of-type` is worked out from the columns shown, so after the tabs (one shown) the
    separators stood in the wrong places; the last column by order carries none, every other one does."""
    app = make_app(scripted_center(llm_server, every_model(count=3, delay=0.01)))
    async with app.run_test(size=(160, 45)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 3, question="Borders?")
        await wait_until(pilot, lambda: all_done(screen.columns))

        def separators() -> list[bool]:
            return [bool(column.styles.border_right[0]) for column in screen.order]

        assert separators() == [True, True, False]
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert screen.has_class("-tabs")  # the first column shown alone (before the fix: [False, True, True] after)
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        assert screen.has_class("-side") and separators() == [True, True, False]
        await pilot.resize_terminal(100, 30)
        await pilot.press("tab", "tab")  # now the last one shown alone
        await pilot.resize_terminal(160, 45)
        await pilot.pause()
        assert separators() == [True, True, False]


async def test_after_a_pick_the_composer_has_the_focus(llm_server: LLMServer) -> None:
    """Issue 25 §14: the pick continues the dialog, so the next thing typed is the next question — after a plain
    pick and after a blind one (revealed, then opened with enter), and also when the comparison was started from
    the message pane (an answer under the cursor asked again), whose focus the main screen would otherwise get
    back."""
    import random

    for blind, keys, size, from_pane in (
        (False, ("1",), (160, 45), False),
        (True, ("1", "enter"), (160, 45), False),
        (False, ("p",), (80, 24), False),
        (True, ("p", "enter"), (80, 24), False),
        (False, ("1",), (160, 45), True),
        (False, ("p",), (80, 24), True),
    ):
        app = make_app(scripted_center(llm_server, every_model(count=3, delay=0.01)))
        async with app.run_test(size=size) as pilot:
            main = main_screen(app)
            if from_pane:
                main.pane.focus()
                await pilot.pause()
            screen = await comparing(pilot, main, 2, question="Pick?", blind=blind, rng=random.Random(3))
            await wait_until(pilot, lambda screen=screen: all_done(screen.columns))
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await wait_until(pilot, lambda app=app, main=main: app.screen is main)
            await pilot.pause()
            assert app.focused is main.composer.input, (blind, size, from_pane, app.focused)
async def test_a_column_on_the_messages_wire_counts_its_cache_reads_as_tokens_in(llm_server: LLMServer) -> None:
    """Issue 25 item 4: on the Anthropic wire the header's "in" left out the prompt the server read from its
    cache (47 shown, 89 read): one rule for both wires — the whole prompt."""
    from tests.llm_server import anthropic_stream

    def cached(model: str) -> Any:
        reply = anthropic_stream([f"{model} answers."], usage=(47, 6))
        start = (
            reply.chunks[0].decode().replace('"input_tokens": 47', '"input_tokens": 47, "cache_read_input_tokens": 42')
        )
        reply.chunks[0] = start.encode()
        return reply

    center = scripted_center(llm_server, {model: (lambda m=model: cached(m)) for model in MODELS[:2]})
    lab = center.get_provider("lab")
    assert lab is not None
    lab.kind, lab.base_url = "anthropic", llm_server.anthropic_url
    app = make_app(center)
    async with app.run_test(size=(120, 40)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="Cached?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        await pilot.pause()
        for column in screen.order:
            assert column.answer_usage() == (89, 6)
            assert "in 89 out 6" in column.header.content.plain


async def test_in_a_column_p_picks_and_the_panes_pin_details_and_ledger_keys_are_off(llm_server: LLMServer) -> None:
    """One mechanism: a column's pane switches its p / i / l off (its check_action), so p reaches the screen and
    picks; no priority binding is needed, and i or l in a column does nothing."""
    app = make_app(scripted_center(llm_server, every_model(count=3, delay=0.01)))
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="Which?")
        await wait_until(pilot, lambda: all_done(screen.columns))
        pane = screen.active_column.pane
        assert app.focused is pane and pane.check_action("context", ("pin",)) is False
        p_keys = [b for b in CompareScreen.BINDINGS if isinstance(b, Binding) and b.key == "p"]
        assert p_keys and not any(b.priority for b in p_keys)
        await pilot.press("i", "l")
        await pilot.pause()
        assert app.screen is screen and not any("pinned" in str(m.meta) for m in pane.dialog.messages)
        await pilot.press("p")
        await wait_until(pilot, lambda: app.screen is main)
        assert screen.winner is not None and screen.picked is not None


async def test_a_column_answered_500_says_asking_while_retried_then_streaming(llm_server: LLMServer) -> None:
    """Issue 25 §14: while a failing column's 500s were retried its header said "● streaming" (the round had
    opened, no word had come). At 80×24, in tabs, on the column shown: asking until words arrive, then streaming."""
    from tests.llm_server import error_reply

    served = {"m-beta": 0}

    def beta() -> Any:
        served["m-beta"] += 1
        return error_reply(500, "overloaded") if served["m-beta"] <= 3 else streamed("m-beta", count=40, delay=0.05)

    replies = {**every_model(count=3, delay=0.01), "m-beta": beta}
    app = make_app(scripted_center(llm_server, replies, retry_base_delay=0.3))
    async with app.run_test(size=(80, 24)) as pilot:
        main = main_screen(app)
        screen = await comparing(pilot, main, 2, question="Retried?")
        beta_column = screen.order[1]
        await pilot.press("tab")  # the failing column's tab
        states: list[tuple[int, str, str]] = []
        for _ in range(400):
            await pilot.pause(0.05)
            header = beta_column.header.content.plain
            states.append((served["m-beta"], header, column_text(beta_column)))
            if "m-beta-word3" in states[-1][2]:
                break
        retrying = [header for count, header, text in states if 1 <= count <= 3 and not text]
        assert retrying and all("streaming" not in header and "asking" in header for header in retrying), retrying
        assert "streaming" in states[-1][1]
        await wait_until(pilot, lambda: all_done(screen.columns), timeout=20)
        assert beta_column.outcome == "finished" and served["m-beta"] == 4
