"""The workbench without a screen: sending, runs and their state, branching, alternatives, the tree, search,
deleting, the status figures. Runs go on in asyncio tasks (`TaskHost`), so none of this needs Textual."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from visindigo.engine import Dialog, DialogChanged, Message, Role, ToolCallFinished, ToolCallStarted
from visindigo.engine.providers import FinishPart, Pause, ProviderError, TextPart
from visindigo.tui.workbench import Refused
from visindigo.tui.workbench import events as news

from .conftest import Bench, answer


async def _ask(bench: Bench, text: str) -> Dialog:
    dialog = bench.workbench.send(text)
    await bench.host.settle()
    return dialog


def test_the_workbench_imports_no_textual() -> None:
    import subprocess

    code = (
        "import sys, visindigo.tui.workbench\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


async def test_sending_registers_titles_and_runs_the_dialog_reporting_each_step() -> None:
    bench = Bench([answer("Hello back", "they greet me")])
    dialog = await _ask(bench, "hi there")
    assert bench.center.get_dialog(dialog.id) is dialog
    assert dialog.title == "hi there"
    assert [(m.role, m.content) for m in dialog.messages] == [(Role.USER, "hi there"), (Role.ASSISTANT, "Hello back")]
    assert dialog.id in bench.workbench.tree_index.summaries
    kinds = bench.kinds(dialog.id)
    assert kinds[:3] == ["MessageAppended", "Sent", "RunStarted"]
    assert kinds.index("StreamBegan") < kinds.index("TextArrived") < kinds.index("StreamEnded")
    assert kinds[-1] == "RunEnded"
    ended = bench.events[-1]
    assert isinstance(ended, news.RunEnded) and ended.outcome == "finished"
    run = bench.workbench.runs.get(dialog.id)
    assert run is not None and not run.running and "".join(run.text.answer) == "Hello back"
    assert run.text.reasoning == ["they greet me"]
    assert "TreeChanged" in bench.kinds()


async def test_a_second_send_while_answering_is_refused_not_queued() -> None:
    bench = Bench([[TextPart("slow"), Pause(5), FinishPart("stop")], answer("second")])
    dialog = bench.workbench.send("first")
    await asyncio.sleep(0.05)
    assert bench.workbench.runs.is_running(dialog.id)
    with pytest.raises(Refused, match="still answering"):
        bench.workbench.send("again")
    assert dialog.message_count == 1
    assert bench.workbench.cancel_run(dialog.id)
    await bench.host.settle()


async def test_cancelling_keeps_the_partial_answer_and_says_cancelling_until_the_run_ends() -> None:
    bench = Bench([[TextPart("The beginning "), Pause(30), TextPart("never"), FinishPart("stop")]])
    dialog = bench.workbench.send("tell me")
    for _ in range(100):
        await asyncio.sleep(0.01)
        run = bench.workbench.runs.get(dialog.id)
        if run is not None and run.text.answer:
            break
    assert bench.workbench.cancel_run(dialog.id)
    assert bench.workbench.status().state == "cancelling…"
    await bench.host.settle()
    assert not bench.workbench.runs.is_running(dialog.id)
    assert bench.workbench.status().state == ""
    last = dialog.last_message
    assert last is not None and last.content == "The beginning " and last.meta.get("status") == "interrupted"
    ended = [e for e in bench.events if isinstance(e, news.RunEnded)]
    assert [e.outcome for e in ended] == ["cancelled"]
    assert not bench.workbench.cancel_run(dialog.id)  # nothing left to cancel


async def test_a_failed_run_reports_why_and_keeps_what_arrived() -> None:
    bench = Bench([[TextPart("partial "), ProviderError("scripted: HTTP 503 service unavailable")]])
    dialog = await _ask(bench, "q")
    ended = bench.events[-1]
    assert isinstance(ended, news.RunEnded) and ended.outcome == "failed" and "503" in ended.error
    assert dialog.message_at(1).content == "partial " and dialog.message_at(1).meta.get("status") == "incomplete"


async def test_regenerate_makes_a_branch_and_keeps_the_original() -> None:
    bench = Bench([answer("first answer"), answer("second answer")])
    original = await _ask(bench, "question")
    branch = bench.workbench.regenerate()
    assert branch is not None and branch is not original and branch.branch_from_id == original.id
    assert not bench.workbench.runs.is_running(branch.id)  # the screen shows it before it runs
    bench.workbench.show(branch)
    bench.workbench.start_run(branch)
    await bench.host.settle()
    assert [m.content for m in branch.messages] == ["question", "second answer"]
    assert [m.content for m in original.messages] == ["question", "first answer"]
    assert bench.workbench.tree_index.parent(branch.id) == original.id
    assert bench.workbench.tree_index.ordinal(branch.id) == 2
    assert bench.workbench.positions(branch) == {1: (2, 2)}
    assert bench.workbench.positions(original) == {1: (1, 2)}


async def test_regenerate_without_an_answer_runs_again_in_place_and_refuses_what_it_cannot_do() -> None:
    bench = Bench([[ProviderError("scripted: down")], answer("now it works")])
    with pytest.raises(Refused, match="Nothing to regenerate"):
        bench.workbench.regenerate()
    dialog = await _ask(bench, "question")
    assert [m.role for m in dialog.messages] == [Role.USER]  # the failed run left no answer
    assert bench.workbench.regenerate() is None  # nothing to replace: the same dialog runs again
    assert bench.kinds(dialog.id).count("Sent") == 2
    await bench.host.settle()
    assert [m.content for m in dialog.messages] == ["question", "now it works"]
    assert len(bench.center.dialogs) == 1


async def test_regenerate_is_refused_while_the_dialog_answers() -> None:
    bench = Bench([[TextPart("slow"), Pause(5), FinishPart("stop")]])
    dialog = bench.workbench.send("q")
    await asyncio.sleep(0.05)
    with pytest.raises(Refused, match="Wait for the answer") as refused:
        bench.workbench.regenerate()
    assert refused.value.severity == "information"
    bench.workbench.cancel_run(dialog.id)
    await bench.host.settle()


async def test_stepping_through_alternatives_visits_each_and_wraps_around() -> None:
    bench = Bench([answer("one"), answer("two"), answer("three")])
    first = await _ask(bench, "question")
    branches = []
    for _ in range(2):
        branch = bench.workbench.regenerate(dialog=first)
        assert branch is not None
        bench.workbench.start_run(branch)
        await bench.host.settle()
        branches.append(branch)
    second, third = branches
    wb = bench.workbench
    assert wb.positions(third) == {1: (3, 3)}
    assert wb.step_alternative(third, 1, -1) is second
    assert wb.step_alternative(second, 1, -1) is first
    assert wb.step_alternative(first, 1, -1) is third  # wraps around
    assert wb.step_alternative(third, 1, 1) is first
    assert wb.step_alternative(first, 0, 1) is None  # they do not part at the question
    assert [d.message_at(1).content for d in (first, second, third)] == ["one", "two", "three"]


async def test_editing_an_earlier_question_branches_from_that_point() -> None:
    bench = Bench([answer("a1"), answer("a2"), answer("edited answer")])
    original = await _ask(bench, "first")
    await _ask(bench, "second")
    wb = bench.workbench
    assert wb.editable_index() == 2  # the user's last message
    assert wb.editable_index(0) == 0  # the one under the cursor, when it is the user's
    assert wb.editable_index(1) == 2  # an answer is not: the last question instead
    with pytest.raises(Refused, match="can no longer be edited"):
        wb.edit(1, "not mine")
    branch = wb.edit(0, "first (better)")
    assert branch.branch_from_id == original.id and [m.content for m in branch.messages] == ["first (better)"]
    wb.show(branch)
    wb.start_run(branch)
    await bench.host.settle()
    assert [(m.role, m.content) for m in branch.messages] == [
        (Role.USER, "first (better)"),
        (Role.ASSISTANT, "edited answer"),
    ]
    assert original.message_count == 4
    assert wb.positions(branch) == {0: (2, 2)}
    assert wb.step_alternative(branch, 0, 1) is original


def test_there_is_nothing_to_edit_in_an_empty_dialog() -> None:
    with pytest.raises(Refused, match="no message of yours"):
        Bench([]).workbench.editable_index()


async def test_the_tree_index_gives_parent_first_branch_and_siblings() -> None:
    bench = Bench([answer("a"), answer("b"), answer("c")])
    root = await _ask(bench, "q")
    wb = bench.workbench
    first, second = wb.regenerate(dialog=root), wb.regenerate(dialog=root)
    assert first is not None and second is not None
    assert wb.parent_of(first.id) == root.id and wb.parent_of(root.id) is None
    assert wb.first_branch_of(root.id) == first.id and wb.first_branch_of(first.id) is None
    assert wb.sibling_of(first.id, 1) == second.id and wb.sibling_of(second.id, -1) == first.id
    assert wb.sibling_of(second.id, 1) is None
    assert {d.id for d in wb.family(second)} == {root.id, first.id, second.id}


async def test_deleting_the_shown_dialog_moves_its_branches_up_and_shows_its_parent() -> None:
    bench = Bench([answer("a"), answer("b"), answer("c")])
    root = await _ask(bench, "q")
    wb = bench.workbench
    middle = wb.regenerate(dialog=root)
    assert middle is not None
    wb.start_run(middle)
    await bench.host.settle()
    leaf = wb.regenerate(dialog=middle)
    assert leaf is not None
    plan = wb.delete_plan(middle.id)
    assert (plan.title, plan.message_count, plan.branch_count) == ("q", 2, 1)
    wb.show(middle)
    assert wb.delete(middle.id) is root  # shown: its parent takes its place
    assert bench.center.get_dialog(middle.id) is None
    assert wb.parent_of(leaf.id) == root.id  # moved up one level, not lost
    wb.show(root)
    assert wb.delete(leaf.id) is None  # not shown: nothing to show instead
    fresh = Dialog(bench.center)
    wb.show(fresh)
    with pytest.raises(Refused, match="not saved yet"):
        wb.delete_plan(fresh.id)
    alone = wb.delete(root.id)
    assert alone is None and len(bench.center.dialogs) == 0


async def test_search_finds_the_message_and_the_dialog() -> None:
    bench = Bench([answer("the kumquat is orange"), answer("b")])
    target = await _ask(bench, "fruit?")
    bench.workbench.show(Dialog(bench.center))
    await _ask(bench, "other")
    hits = bench.workbench.search("kumquat")
    assert [(h.dialog_id, h.message_index) for h in hits] == [(target.id, 1)]


async def test_a_new_dialog_keeps_the_model_and_an_empty_one_is_not_replaced() -> None:
    bench = Bench([answer("a")])
    wb = bench.workbench
    assert wb.new_dialog() is None  # the shown one is new and empty already
    wb.set_model(wb.shown, "scripted", "scripted-model")
    changed = bench.events[-1]
    assert isinstance(changed, news.EngineEvent) and isinstance(changed.event, DialogChanged)
    await _ask(bench, "q")
    fresh = wb.new_dialog()
    assert fresh is not None and fresh.message_count == 0
    assert (fresh.provider_id, fresh.model_id) == ("scripted", "scripted-model")


async def test_a_template_is_sent_or_kept_back_for_the_composer() -> None:
    bench = Bench([answer("templated answer")])
    wb = bench.workbench
    example = Message(Role.USER, "an example question")
    prompt = Message(Role.PROMPT, "Review this: x = 1", name="review")
    kept = wb.add_template([example, prompt], send=False)
    assert kept is prompt
    assert [m.content for m in wb.shown.messages] == ["an example question"]  # earlier ones go in either way
    assert wb.shown.title == "Review this: x = 1"  # named after the template, not the example
    assert not wb.runs.is_running(wb.shown.id)
    wb.send_edited_template(prompt, "Review this: x = 2")
    await bench.host.settle()
    sent = wb.shown.message_at(1)
    assert (sent.role, sent.name, sent.content) == (Role.PROMPT, "review", "Review this: x = 2")
    assert wb.shown.last_message is not None and wb.shown.last_message.content == "templated answer"


async def test_status_figures_follow_the_run_and_add_up_reported_usage() -> None:
    from visindigo.engine.providers import UsagePart

    turn = [TextPart("a"), Pause(0.2), TextPart("b"), UsagePart(10, 2), FinishPart("stop")]
    bench = Bench([turn, answer("again")])
    wb = bench.workbench
    status = wb.status()
    assert status.provider and status.model and status.state == ""
    dialog = wb.send("q")
    for _ in range(100):
        await asyncio.sleep(0.01)
        if wb.status().state.startswith("generating"):
            break
    assert wb.status().state == "generating… esc cancels"
    await bench.host.settle()
    assert (wb.status().input_tokens, wb.status().output_tokens) == (10, 2)
    await _ask(bench, "more")
    assert wb.status(dialog).input_tokens >= 10


async def test_tool_calls_ask_the_host_and_report_start_and_end() -> None:
    from visindigo.engine import Function
    from visindigo.engine.approval import Approval
    from visindigo.engine.providers import ToolCallPart

    class Wipe(Function):
        id = "wipe"
        name = "wipe"
        description = "wipes"
        parameter_schema: dict[str, Any] = {"type": "object", "properties": {}}
        requires_approval = True

        def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
            return {"wiped": True}

    bench = Bench([[ToolCallPart("c1", "wipe", "{}"), FinishPart("tool_calls")], answer("done")])
    bench.center.add_function(Wipe())
    bench.host.approvals = [Approval.ALLOW_ONCE]
    dialog = await _ask(bench, "wipe it")
    assert [r.function_id for r in bench.host.asked] == ["wipe"]
    engine = [e.event for e in bench.events if isinstance(e, news.EngineEvent)]
    started = [e for e in engine if isinstance(e, ToolCallStarted)]
    finished = [e for e in engine if isinstance(e, ToolCallFinished)]
    assert [e.call_id for e in started] == ["c1"] and [e.is_error for e in finished] == [False]
    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]


def test_a_broken_listener_does_not_stop_the_others() -> None:
    bench = Bench([])
    seen: list[object] = []

    def broken(event: object) -> None:
        raise RuntimeError("listener bug")

    bench.workbench.subscribe(broken)
    unsubscribe = bench.workbench.subscribe(seen.append)
    bench.workbench.refresh_tree()
    assert len(seen) == 1
    unsubscribe()
    bench.workbench.refresh_tree()
    assert len(seen) == 1


async def test_tokens_in_are_the_engines_count_while_the_answer_streams_then_the_servers() -> None:
    """Issue 25 item 6: a server that reports usage only at the end showed "in 0" while it streamed."""
    from visindigo.engine.providers import UsagePart

    turn = [TextPart("a"), Pause(0.5), TextPart("b"), UsagePart(321, 2), FinishPart("stop")]
    bench = Bench([turn])
    wb = bench.workbench
    wb.send("a question of a few words")
    for _ in range(500):
        await asyncio.sleep(0.01)
        if wb.status().state.startswith("generating"):
            break
    streaming = wb.status()
    assert streaming.input_tokens > 0 and streaming.estimated  # shown as ~N
    await bench.host.settle()
    done = wb.status()
    assert (done.input_tokens, done.estimated) == (321, False)  # the server's figure replaces the count
