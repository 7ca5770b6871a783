"""Runs against the loopback LLM server are stored as they happen: answers, failures and cancellations."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.llm_server import LLMServer, openai_stream
from visindigo.engine import Center, ModelInfo, Provider, Role, StreamDelta

from .conftest import raw_rows, reopen


def connect(center: Center, server: LLMServer) -> None:
    center.add_provider(
        Provider("loop", kind="openai", base_url=server.openai_url, api_key="sk-test", models=[ModelInfo("m")])
    )


async def test_an_answer_is_stored_with_its_reasoning_and_meta(
    center: Center, home: Path, llm_server: LLMServer
) -> None:
    connect(center, llm_server)
    llm_server.queue(openai_stream(["Hel", "lo"], reasoning=["think"], usage=(5, 2)))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    [_ async for _ in dialog.run()]
    again = reopen(center, home)
    try:
        loaded = again.get_dialog(dialog.id)
        assert loaded is not None
        assert loaded.to_json() == dialog.to_json()
        last = loaded.last_message
        assert (last.role, last.content, last.reasoning) == (Role.ASSISTANT, "Hello", "think")
        assert raw_rows(home, "SELECT count(*) FROM drafts") == [(0,)]
    finally:
        again.close()


async def test_a_stream_cut_mid_answer_is_stored_as_incomplete(
    center: Center, home: Path, llm_server: LLMServer
) -> None:
    connect(center, llm_server)
    llm_server.queue(openai_stream(["partial ", "text"], finish=None, done=False, cut=True))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    [_ async for _ in dialog.run()]
    rows = raw_rows(home, "SELECT role, content, meta FROM messages ORDER BY position")
    assert rows[-1][:2] == ("assistant", "partial text") and '"incomplete"' in str(rows[-1][2])
    assert raw_rows(home, "SELECT count(*) FROM drafts") == [(0,)]


async def test_a_cancelled_run_keeps_the_partial_answer_as_interrupted(
    center: Center, home: Path, llm_server: LLMServer
) -> None:
    connect(center, llm_server)
    llm_server.queue(openai_stream([f"w{i} " for i in range(200)], delay_between=0.02))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    seen = asyncio.Event()

    async def consume() -> None:
        async for event in dialog.run():
            if isinstance(event, StreamDelta) and dialog.streaming_content.count("w") >= 5:
                seen.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(seen.wait(), 10)
    assert raw_rows(home, "SELECT count(*) FROM drafts") == [(1,)]  # checkpointed while streaming
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    rows = raw_rows(home, "SELECT role, content, meta FROM messages ORDER BY position")
    assert rows[-1][0] == "assistant" and str(rows[-1][1]).startswith("w0 w1 w2 w3 w4")
    assert '"interrupted"' in str(rows[-1][2])
    assert raw_rows(home, "SELECT count(*) FROM drafts") == [(0,)]
