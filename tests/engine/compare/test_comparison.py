"""Comparison against real loopback servers: branches like regenerate, concurrent runs, limits, failure, cancel."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, RecordedRequest, Reply, anthropic_stream, error_reply, openai_stream
from visindigo.engine import (
    Center,
    Dialog,
    Message,
    ModelInfo,
    Provider,
    Role,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    StreamDelta,
    WaitingForProvider,
)
from visindigo.engine.compare import ColumnEvent, CompareError, Comparison, ModelChoice
from visindigo.tui.workbench.branches import alternatives


@pytest.fixture
def second_server() -> Iterator[LLMServer]:
    with LLMServer() as server:
        yield server


def by_model(replies: dict[str, Reply]) -> object:
    """A responder answering each request with the reply scripted for the model it names."""

    def respond(request: RecordedRequest) -> Reply:
        model = (request.json or {}).get("model", "")
        return replies.get(model) or error_reply(500, f"no reply scripted for {model}")

    return respond


def two_provider_center(openai: LLMServer, anthropic: LLMServer) -> Center:
    center = Center()
    center.add_provider(
        Provider(
            "local",
            name="Local",
            base_url=openai.openai_url,
            models=[ModelInfo("qwen"), ModelInfo("llama")],
            settings={"max_retries": 0},
        )
    )
    center.add_provider(
        Provider(
            "claude",
            kind="anthropic",
            name="Anthropic",
            base_url=anthropic.anthropic_url,
            api_key="sk-ant-test",
            models=[ModelInfo("claude-test", max_output_tokens=1024)],
            settings={"max_retries": 0},
        )
    )
    return center


QWEN_LLAMA = [ModelChoice("local", "qwen"), ModelChoice("local", "llama")]


def local_center(server: LLMServer) -> Center:
    """One OpenAI-compatible provider, "local", with two models."""
    center = Center()
    center.add_provider(Provider("local", base_url=server.openai_url, models=[ModelInfo("qwen"), ModelInfo("llama")]))
    return center


def asked(center: Center, *history: str) -> Dialog:
    dialog = center.create_dialog()
    for number, text in enumerate(history):
        dialog.append_message(Role.USER if number % 2 == 0 else Role.ASSISTANT, text)
    return dialog


async def collect(comparison: Comparison) -> list[ColumnEvent]:
    return [update async for update in comparison.run()]


async def test_each_model_answers_in_its_own_branch_at_once(llm_server: LLMServer, second_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["Rayleigh ", "scattering"], delay_between=0.05))
    second_server.queue(anthropic_stream(["Short ", "waves ", "scatter"], delay_between=0.05))
    center = two_provider_center(llm_server, second_server)
    dialog = asked(center, "Hi", "Hello!")
    choices = [ModelChoice("local", "qwen"), ModelChoice("claude", "claude-test")]

    comparison = Comparison.ask(center, dialog, choices, "Why is the sky blue?")
    updates = await collect(comparison)

    # the question is recorded where it was asked; every branch is made like regenerate's: branch_from_id
    assert [m.content for m in dialog.messages] == ["Hi", "Hello!", "Why is the sky blue?"]
    assert comparison.cut == 3
    local, claude = (column.dialog for column in comparison.columns)
    assert local.branch_from_id == dialog.id and claude.branch_from_id == dialog.id
    assert (local.provider_id, local.model_id) == ("local", "qwen")
    assert (claude.provider_id, claude.model_id) == ("claude", "claude-test")
    assert local.last_message.content == "Rayleigh scattering"
    assert claude.last_message.content == "Short waves scatter"
    assert [m.content for m in local.messages[:3]] == ["Hi", "Hello!", "Why is the sky blue?"]
    assert [column.status for column in comparison.columns] == ["finished", "finished"]
    # both went out together: each column had text before either had finished
    kinds = [(u.column, type(u.event).__name__) for u in updates]
    first_finish = min(kinds.index((0, "RunFinished")), kinds.index((1, "RunFinished")))
    assert kinds.index((0, "StreamDelta")) < first_finish and kinds.index((1, "StreamDelta")) < first_finish
    assert llm_server.requests[-1].json["model"] == "qwen"
    assert second_server.requests[-1].json["messages"][-1]["content"][0]["text"] == "Why is the sky blue?"
    # each update names its column and dialog
    assert all(u.dialog_id == comparison.columns[u.column].dialog.id for u in updates)
    assert [u.column for u in updates if isinstance(u.event, RunFinished)] in ([0, 1], [1, 0])


async def test_two_models_on_a_one_at_a_time_server_run_one_after_the_other(llm_server: LLMServer) -> None:
    llm_server.responder = by_model(
        {
            "qwen": openai_stream(["q1", "q2", "q3"], delay_between=0.05),
            "llama": openai_stream(["l1", "l2", "l3"], delay_between=0.05),
        }
    )
    center = Center()
    center.add_provider(
        Provider(
            "llama.cpp",
            name="llama.cpp",
            base_url=llm_server.openai_url,
            models=[ModelInfo("qwen"), ModelInfo("llama")],
            settings={"max_concurrent_runs": 1},
        )
    )
    dialog = asked(center)
    comparison = Comparison.ask(
        center, dialog, [ModelChoice("llama.cpp", "qwen"), ModelChoice("llama.cpp", "llama")], "q"
    )
    statuses: list[list[str]] = []
    updates = []
    async for update in comparison.run():
        updates.append(update)
        statuses.append([column.status for column in comparison.columns])

    assert llm_server.max_in_flight == 1
    assert {c.dialog.last_message.content for c in comparison.columns} == {"q1q2q3", "l1l2l3"}
    waits = [u for u in updates if isinstance(u.event, WaitingForProvider)]
    assert len(waits) == 1 and waits[0].event.provider_name == "llama.cpp"
    waiting_column = waits[0].column
    # the waiting column said so until its turn came, then began after the other had finished
    assert any(row[waiting_column] == "waiting" for row in statuses)
    kinds = [(u.column, type(u.event).__name__) for u in updates]
    other = 1 - waiting_column
    assert kinds.index((other, "RunFinished")) < kinds.index((waiting_column, "StreamBegan"))
    assert [column.status for column in comparison.columns] == ["finished", "finished"]


async def test_one_model_failing_leaves_the_others_going(llm_server: LLMServer, second_server: LLMServer) -> None:
    llm_server.queue(error_reply(401, "invalid api key for qwen"))
    second_server.queue(anthropic_stream(["still ", "here"], delay_between=0.1))
    center = two_provider_center(llm_server, second_server)
    dialog = asked(center)
    choices = [ModelChoice("local", "qwen"), ModelChoice("claude", "claude-test")]
    comparison = Comparison.ask(center, dialog, choices, "q")
    updates = await collect(comparison)

    failed, fine = comparison.columns
    assert failed.status == "failed" and "invalid api key for qwen" in failed.error
    assert [u.column for u in updates if isinstance(u.event, RunFailed)] == [0]
    assert fine.status == "finished" and fine.dialog.last_message.content == "still here"
    # nothing to choose in the failed column; the answer that came can be chosen over nothing
    with pytest.raises(CompareError, match="no answer"):
        comparison.pick(0)
    pick = comparison.pick(1)
    assert pick.winner.model_id == "claude-test" and pick.losers == ()


async def test_a_model_that_is_not_configured_fails_its_column_only(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["ok"]))
    center = Center()
    center.add_provider(Provider("local", base_url=llm_server.openai_url, models=[ModelInfo("qwen")]))
    comparison = Comparison.ask(center, asked(center), [ModelChoice("local", "qwen"), ModelChoice("gone", "x")], "q")
    await collect(comparison)
    assert comparison.columns[0].status == "finished"
    assert comparison.columns[1].status == "failed" and "'gone'" in comparison.columns[1].error


async def test_cancel_one_column_keeps_its_partial_answer_and_the_rest_goes_on(llm_server: LLMServer) -> None:
    llm_server.responder = by_model(
        {
            "qwen": openai_stream(["fast ", "answer"], delay_between=0.2),
            "llama": openai_stream([f"w{i} " for i in range(40)], delay_between=0.05),
        }
    )
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    updates = []
    async for update in comparison.run():
        updates.append(update)
        if update.column == 1 and isinstance(update.event, StreamDelta) and update.event.text == "w2 ":
            assert comparison.cancel(1)
    quick, slow = comparison.columns
    assert quick.status == "finished" and quick.dialog.last_message.content == "fast answer"
    assert slow.status == "cancelled"
    partial = slow.dialog.last_message
    assert partial.role is Role.ASSISTANT and partial.content.startswith("w0 w1 w2")
    assert partial.meta["status"] == "interrupted"
    assert [u.column for u in updates if isinstance(u.event, RunCancelled)] == [1]
    assert not comparison.cancel(1)  # over already
    assert not comparison.running


async def test_cancel_all_stops_every_column_and_closing_the_iterator_does_too(llm_server: LLMServer) -> None:
    llm_server.responder = lambda _request: openai_stream([f"t{i} " for i in range(100)], delay_between=0.05)
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    started = time.monotonic()
    async for update in comparison.run():
        if isinstance(update.event, StreamDelta) and update.event.text == "t1 ":
            assert comparison.cancel_all() >= 1
    assert time.monotonic() - started < 3
    assert [column.status for column in comparison.columns] == ["cancelled", "cancelled"]

    second = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    iterator = second.run()
    async for update in iterator:
        if isinstance(update.event, StreamDelta):
            break
    await iterator.aclose()  # type: ignore[attr-defined]
    await asyncio.sleep(0)
    assert not second.running
    assert {column.status for column in second.columns} == {"cancelled"}


async def test_regenerate_at_an_answer_cuts_where_regenerate_does_and_the_old_answer_stays(
    llm_server: LLMServer,
) -> None:
    llm_server.responder = by_model(
        {"qwen": openai_stream(["qwen says"]), "llama": openai_stream(["llama says"])}
    )
    center = local_center(llm_server)
    dialog = asked(center, "first", "old answer 1", "second", "old answer 2")
    comparison = Comparison.regenerate(center, dialog, QWEN_LLAMA, 1)
    await collect(comparison)

    assert comparison.cut == 1
    assert [m.content for m in dialog.messages] == ["first", "old answer 1", "second", "old answer 2"]
    qwen, llama = (column.dialog for column in comparison.columns)
    assert [m.content for m in qwen.messages] == ["first", "qwen says"]
    assert [m.content for m in llama.messages] == ["first", "llama says"]
    # the alternatives at the answer: the old one, then the comparison's in creation (column) order
    family = [dialog, qwen, llama]
    for shown in family:
        choices = alternatives(shown, family)
        assert list(choices) == [1]
        assert [d.id for d in choices[1]] == [dialog.id, qwen.id, llama.id]


async def test_regenerate_without_an_index_replaces_the_last_answer(llm_server: LLMServer) -> None:
    llm_server.responder = lambda _request: openai_stream(["new"])
    center = local_center(llm_server)
    dialog = asked(center, "q", "a")
    comparison = Comparison.regenerate(center, dialog, QWEN_LLAMA)
    assert comparison.cut == 1
    assert all(column.dialog.message_count == 1 for column in comparison.columns)


def test_two_to_four_models_and_an_idle_dialog_are_required() -> None:
    center = Center()
    dialog = center.create_dialog()
    one = [ModelChoice("p", "a")]
    with pytest.raises(CompareError, match="2 to 4 models, not 1"):
        Comparison.ask(center, dialog, one, "q")
    with pytest.raises(CompareError, match="not 5"):
        Comparison.ask(center, dialog, one * 5, "q")
    with pytest.raises(CompareError, match="no question"):
        Comparison.ask(center, dialog, one * 2, "  ")
    assert dialog.message_count == 0  # a refused comparison changes nothing
    assert len(center.dialog_summaries()) == 1


async def test_pick_records_winner_losers_and_tag_and_refuses_while_running(llm_server: LLMServer) -> None:
    llm_server.responder = by_model(
        {"qwen": openai_stream(["A"], delay_first_byte=0.2), "llama": openai_stream(["B"], delay_first_byte=0.2)}
    )
    center = local_center(llm_server)
    dialog = center.create_dialog()
    question = Message(Role.PROMPT, "Review this SQL", name="sql-review")
    comparison = Comparison.ask(center, dialog, QWEN_LLAMA, question)
    iterator = comparison.run()
    first = await iterator.__anext__()  # type: ignore[attr-defined]
    assert first is not None
    with pytest.raises(CompareError, match="still coming"):
        comparison.pick(0)
    async for _update in iterator:
        pass

    before = time.time()
    pick = comparison.pick(1)
    assert pick.question_dialog_id == dialog.id
    assert (pick.winner.dialog_id, pick.winner.provider_id, pick.winner.model_id) == (
        comparison.columns[1].dialog.id, "local", "llama"
    )
    assert [(loser.dialog_id, loser.model_id) for loser in pick.losers] == [(comparison.columns[0].dialog.id, "qwen")]
    assert pick.tag == "sql-review" and pick.blind is False and pick.created_at >= before
    assert center.picks() == [pick]
    with pytest.raises(CompareError, match="chosen already"):
        comparison.pick(0)


async def test_blind_columns_are_letters_in_a_random_order_until_the_pick(llm_server: LLMServer) -> None:
    llm_server.responder = lambda _request: openai_stream(["same"])
    center = Center()
    center.add_provider(
        Provider("local", base_url=llm_server.openai_url, models=[ModelInfo(m) for m in ("m1", "m2", "m3", "m4")])
    )
    choices = [ModelChoice("local", m) for m in ("m1", "m2", "m3", "m4")]
    orders = set()
    for seed in range(6):
        comparison = Comparison.ask(center, asked(center), choices, "q", blind=True, rng=random.Random(seed))
        assert [comparison.label(i) for i in range(4)] == ["A", "B", "C", "D"]
        orders.add(tuple(column.choice.model_id for column in comparison.columns))
    assert len(orders) > 1  # shuffled: the column's place does not tell the model

    await collect(comparison)
    pick = comparison.pick(2)
    assert pick.blind is True
    assert comparison.revealed
    assert comparison.label(2) == comparison.columns[2].choice.model_id == pick.winner.model_id
    # the branches were made in column order, so ◀ n/m ▶ lists them as the columns were shown
    created = [column.dialog.created_at for column in comparison.columns]
    assert created == sorted(created)


def test_the_same_model_at_two_providers_is_told_apart() -> None:
    center = Center()
    center.add_provider(Provider("openai", name="OpenAI", models=[ModelInfo("gpt-4o")]))
    center.add_provider(Provider("router", name="OpenRouter", models=[ModelInfo("gpt-4o")]))
    comparison = Comparison.ask(
        center, center.create_dialog(), [ModelChoice("openai", "gpt-4o"), ModelChoice("router", "gpt-4o")], "q"
    )
    assert [comparison.label(i) for i in range(2)] == ["gpt-4o · OpenAI", "gpt-4o · OpenRouter"]


async def test_columns_follow_their_dialogs_when_the_front_end_drives_the_runs(llm_server: LLMServer) -> None:
    llm_server.responder = lambda _request: openai_stream(["x"])
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    assert [column.status for column in comparison.columns] == ["ready", "ready"]

    async def run(dialog: Dialog) -> list[object]:
        return [event async for event in dialog.run()]

    events = await asyncio.gather(*(run(column.dialog) for column in comparison.columns))
    assert all(any(isinstance(e, StreamBegan) for e in each) for each in events)
    assert [column.status for column in comparison.columns] == ["finished", "finished"]
    comparison.close()
    assert comparison.pick(0).winner.model_id == "qwen"


async def test_after_a_new_question_the_answers_are_each_others_alternatives_in_creation_order(
    llm_server: LLMServer,
) -> None:
    llm_server.responder = by_model({"qwen": openai_stream(["from qwen"]), "llama": openai_stream(["from llama"])})
    center = local_center(llm_server)
    dialog = asked(center, "earlier", "earlier answer")
    comparison = Comparison.ask(center, dialog, QWEN_LLAMA, "new question")
    await collect(comparison)
    branches = [column.dialog for column in comparison.columns]
    family = [dialog, *branches]
    for chosen in branches:  # whichever is picked and opened, ◀ 1/2 ▶ steps through both, oldest first
        assert {index: [d.id for d in ds] for index, ds in alternatives(chosen, family).items()} == {
            3: [branches[0].id, branches[1].id]
        }
    assert alternatives(dialog, family) == {}  # the dialog asked in holds the question and no answer: no choice


async def test_running_again_runs_only_what_is_asked_for(llm_server: LLMServer) -> None:
    replies = iter([error_reply(401, "not yet"), openai_stream(["second try"])])
    llm_server.responder = lambda request: (
        openai_stream(["fine"]) if request.json["model"] == "qwen" else next(replies)
    )
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    await collect(comparison)
    assert [c.status for c in comparison.columns] == ["finished", "failed"]
    assert await collect(comparison) == []  # nothing is left to run: no second answer anywhere
    again = [update async for update in comparison.run(columns=[1])]
    assert {update.column for update in again} == {1}
    assert [c.status for c in comparison.columns] == ["finished", "finished"]
    assert comparison.columns[1].dialog.last_message.content == "second try"
    assert [m.content for m in comparison.columns[0].dialog.messages] == ["q", "fine"]


async def test_a_pick_after_the_models_were_shown_is_not_blind(llm_server: LLMServer) -> None:
    llm_server.responder = lambda _request: openai_stream(["same"])
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q", blind=True, rng=random.Random(1))
    await collect(comparison)
    comparison.reveal()
    assert comparison.label(0) == comparison.columns[0].choice.model_id
    assert comparison.pick(0).blind is False


def failing_pick_writes(center: Center) -> None:
    """Make the real store refuse every pick from now on, as a full disk would (a trigger in the SQLite file)."""
    assert center.store is not None
    conn = sqlite3.connect(center.store.path)
    conn.execute(
        "CREATE TRIGGER no_room BEFORE INSERT ON picks BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END"
    )
    conn.commit()
    conn.close()


async def test_a_pick_the_store_cannot_write_is_still_made_and_kept_for_this_session(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.responder = by_model({"qwen": openai_stream(["A"]), "llama": openai_stream(["B"])})
    center = Center.open(tmp_path / "home")
    try:
        center.add_provider(
            Provider("local", base_url=llm_server.openai_url, models=[ModelInfo("qwen"), ModelInfo("llama")])
        )
        comparison = Comparison.ask(center, center.create_dialog(), QWEN_LLAMA, "Which?")
        await collect(comparison)
        failing_pick_writes(center)
        pick = comparison.pick(1)  # before the fix: sqlite3.OperationalError reached the caller (the app crashed)
        assert comparison.picked == pick and pick.winner.model_id == "llama"
        assert "could not be saved" in comparison.save_problem and "disk is full" in comparison.save_problem
        assert center.picks() == [pick]  # the scores of this session still count it
        with pytest.raises(CompareError, match="chosen already"):
            comparison.pick(0)
    finally:
        center.close()


async def test_a_retry_that_ends_first_leaves_the_columns_of_the_first_run_going(llm_server: LLMServer) -> None:
    replies = iter([error_reply(401, "not yet"), openai_stream(["second try"])])
    llm_server.responder = lambda request: (
        openai_stream([f"s{i} " for i in range(30)], delay_between=0.05)
        if request.json["model"] == "qwen"
        else next(replies)
    )
    center = local_center(llm_server)
    comparison = Comparison.ask(center, asked(center), QWEN_LLAMA, "q")
    first = comparison.run()
    retried = False
    async for update in first:
        if update.column == 1 and isinstance(update.event, RunFailed) and not retried:
            retried = True
            # run the failed column again while the other still streams; this retry ends first
            again = [each async for each in comparison.run(columns=[1])]
            assert isinstance(again[-1].event, RunFinished)
            assert comparison.columns[0].status == "running"  # before: the retry's end cancelled it
    assert retried
    assert [c.status for c in comparison.columns] == ["finished", "finished"]
    assert comparison.columns[0].dialog.last_message.content == "".join(f"s{i} " for i in range(30))
