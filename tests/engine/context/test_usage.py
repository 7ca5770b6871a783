"""Tokens, cache and cost per answer, as each wire reports them, and the one rule for "tokens in"."""

from __future__ import annotations

from typing import Any

from tests.llm_server import LLMServer, anthropic_stream, openai_chunk, sse_reply
from visindigo.engine import Center, ModelInfo, Provider, Role, UsageReported
from visindigo.engine.context.usage import answer_usage, tokens_in


def dialog_on(server: LLMServer, kind: str = "openai", model: str = "test-model") -> Any:
    center = Center()
    center.add_provider(Provider("p", kind=kind, base_url=server.openai_url, api_key="k", models=[ModelInfo(model)]))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    return dialog


def openai_usage_stream(usage: dict[str, Any], **chunk_fields: Any) -> Any:
    last = openai_chunk(usage=usage, choices=False)
    last.update(chunk_fields)
    return sse_reply(
        [openai_chunk({"role": "assistant", "content": "ok"}), openai_chunk({}, "stop"), last, "data: [DONE]\n\n"]
    )


async def answered(dialog: Any) -> tuple[list[Any], Any]:
    events = [event async for event in dialog.run()]
    return events, answer_usage(dialog.last_message)


async def test_openai_cached_and_reasoning_tokens(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_usage_stream(
            {
                "prompt_tokens": 1200,
                "completion_tokens": 300,
                "prompt_tokens_details": {"cached_tokens": 1024},
                "completion_tokens_details": {"reasoning_tokens": 256},
            }
        )
    )
    events, usage = await answered(dialog_on(llm_server))
    assert UsageReported(1200, 300, 256, 1024, 0, None) in events
    assert (usage.input_tokens, usage.cached_tokens, usage.uncached_input_tokens) == (1200, 1024, 176)
    assert (usage.output_tokens, usage.reasoning_tokens, usage.estimated) == (300, 256, False)
    assert usage.answer_id and usage.at > 0 and usage.model_id == "test-model"


async def test_deepseek_cache_hits(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_usage_stream(
            {
                "prompt_tokens": 900,
                "completion_tokens": 10,
                "prompt_cache_hit_tokens": 640,
                "prompt_cache_miss_tokens": 260,
            }
        )
    )
    _, usage = await answered(dialog_on(llm_server))
    assert (usage.input_tokens, usage.cached_tokens) == (900, 640)


async def test_llama_cpp_usage_and_timings(llm_server: LLMServer) -> None:
    # the last chunk llama.cpp's own server sent for a second question sharing a 24-token prefix
    llm_server.queue(
        openai_usage_stream(
            {
                "completion_tokens": 10,
                "prompt_tokens": 29,
                "total_tokens": 39,
                "prompt_tokens_details": {"cached_tokens": 24},
            },
            timings={
                "cache_n": 24,
                "prompt_n": 5,
                "prompt_ms": 71.242,
                "predicted_n": 10,
                "predicted_ms": 180.646,
                "predicted_per_second": 49.82,
            },
        )
    )
    dialog = dialog_on(llm_server)
    _, usage = await answered(dialog)
    assert (usage.input_tokens, usage.cached_tokens, usage.output_tokens) == (29, 24, 10)
    assert dialog.last_message.meta["usage"]["timings"]["predicted_per_second"] == 49.82


async def test_llama_cpp_timings_alone_are_the_usage(llm_server: LLMServer) -> None:
    final = openai_chunk({}, "stop")
    final["timings"] = {"cache_n": 20, "prompt_n": 9, "predicted_n": 4, "predicted_ms": 80.0}
    llm_server.queue(sse_reply([openai_chunk({"role": "assistant", "content": "ok"}), final, "data: [DONE]\n\n"]))
    dialog = dialog_on(llm_server)
    dialog.center.get_provider("p").settings["stream_usage"] = False
    _, usage = await answered(dialog)
    assert (usage.input_tokens, usage.cached_tokens, usage.output_tokens, usage.estimated) == (29, 20, 4, False)


async def test_openrouter_cost_and_cache_writes(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_usage_stream(
            {
                "prompt_tokens": 5000,
                "completion_tokens": 100,
                "cost": 0.0231,
                "prompt_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 4800},
            }
        )
    )
    _, usage = await answered(dialog_on(llm_server, model="anthropic/claude-sonnet-4"))
    assert (usage.input_tokens, usage.cache_write_tokens, usage.reported_cost) == (5000, 4800, 0.0231)


def anthropic_cached_stream(input_tokens: int, read: int, written: int, output: int) -> Any:
    reply = anthropic_stream(["ok"], usage=(input_tokens, output))
    start = (
        reply.chunks[0]
        .decode()
        .replace(
            f'"input_tokens": {input_tokens}',
            f'"input_tokens": {input_tokens}, "cache_read_input_tokens": {read}, '
            f'"cache_creation_input_tokens": {written}',
        )
    )
    reply.chunks[0] = start.encode()
    return reply


async def test_anthropic_tokens_in_include_the_cache(llm_server: LLMServer) -> None:
    """Issue 25 item 4: 47 shown where the server read 89 — `input_tokens` leaves out the cache on this wire."""
    llm_server.queue(anthropic_cached_stream(47, 42, 0, 12))
    dialog = dialog_on(llm_server, kind="anthropic", model="claude-sonnet-4-20250514")
    events, usage = await answered(dialog)
    reported = next(event for event in events if isinstance(event, UsageReported))
    assert reported.input_tokens == 89 and reported.cached_tokens == 42
    assert tokens_in(dialog.last_message.meta["usage"]) == 89
    assert (usage.input_tokens, usage.cached_tokens, usage.uncached_input_tokens) == (89, 42, 47)


async def test_anthropic_cache_writes_count_as_tokens_in(llm_server: LLMServer) -> None:
    llm_server.queue(anthropic_cached_stream(10, 0, 3000, 5))
    _, usage = await answered(dialog_on(llm_server, kind="anthropic", model="claude-sonnet-4-20250514"))
    assert (usage.input_tokens, usage.cache_write_tokens, usage.uncached_input_tokens) == (3010, 3000, 10)


async def test_both_wires_give_the_same_tokens_in_for_the_same_prompt(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_usage_stream(
            {"prompt_tokens": 89, "completion_tokens": 12, "prompt_tokens_details": {"cached_tokens": 42}}
        ),
        anthropic_cached_stream(47, 42, 0, 12),
    )
    _, chat = await answered(dialog_on(llm_server))
    _, messages = await answered(dialog_on(llm_server, kind="anthropic", model="claude-sonnet-4-20250514"))
    assert (chat.input_tokens, chat.cached_tokens) == (messages.input_tokens, messages.cached_tokens) == (89, 42)
