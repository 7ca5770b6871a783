"""The engine against a real llama.cpp server (llama-server from the xllamacpp wheel, on Gemma 3 270M): what the
loopback script server cannot show, because these are the server's own behaviours — on both of its wires, chat
completions (`openai` provider) and the Messages API (`anthropic` provider, the same server's `/v1/messages`).

The model's words are noise (a base model), so the tests assert the protocol: deltas arrive, the answer is
stored, a forced tool call runs and its result gets an answer, usage is recorded, a cancel leaves a consistent
dialog and a usable server, two dialogs are served at once on the server's two slots, a comparison asks two
"models" (two names of the one model), and an answer the context cut short is not called an output limit.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from tests.interop.llama_server import LlamaServer
from tests.interop.tools import get_time, get_weather
from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    Event,
    ModelInfo,
    Notice,
    Provider,
    Role,
    RunFailed,
    RunFinished,
    StreamDelta,
    ToolCallFinished,
    ToolCallStarted,
    WaitingForProvider,
)
from visindigo.engine.compare import Comparison, ModelChoice
from visindigo.engine.providers.discovery import DiscoveredProvider, probe_url
from visindigo.engine.providers.windows import window
from visindigo.engine.stop_reason import CONTEXT_FULL

pytestmark = pytest.mark.llama

SHORT = {"max_tokens": 12, "temperature": 0.0, "seed": 7}
#: Enough for the server's pretty-printed call (`{\n  "tz": "UTC"\n  }` and the markers: about 36 tokens).
TOOL_TOKENS = 48
WIRES = pytest.mark.parametrize("wire", ["openai", "anthropic"])
#: How each wire names an ordinary end and an output limit.
ENDS = {"openai": ("stop", "length"), "anthropic": ("end_turn", "max_tokens")}


def llama_provider(
    server: LlamaServer, wire: str = "openai", *, id: str = "", model: str = "", **settings: Any
) -> Provider:
    return Provider(
        id or f"llama-{wire}",
        kind=wire,
        name=f"llama.cpp ({wire})",
        base_url=server.base_url,
        models=[ModelInfo(model or server.model_id, capabilities=Capability.TEXT | Capability.TOOLS)],
        settings={"server": "llama.cpp", **settings},
    )


def make_dialog(server: LlamaServer, wire: str = "openai", **settings: Any) -> tuple[Center, Dialog]:
    center = Center()
    center.add_provider(llama_provider(server, wire, **settings))
    dialog = center.create_dialog()
    dialog.parameters = dict(SHORT)
    return center, dialog


def observe_requests(provider: Provider) -> list[dict[str, Any]]:
    """The JSON bodies the provider's adapter sends to the real server, as sent (an httpx request hook)."""
    bodies: list[dict[str, Any]] = []

    async def record(request: Any) -> None:
        if request.method == "POST":
            bodies.append(json.loads(request.content))

    provider.adapter.http.client.event_hooks["request"].append(record)  # type: ignore[attr-defined]
    return bodies


async def force_get_time_asking_for_the_weather(center: Center, provider: Provider) -> list[dict[str, Any]]:
    """A run with both tools, `get_time` forced and a question about the weather: the forced one must be called.
    Returns the request bodies sent."""
    sent = observe_requests(provider)
    dialog = center.create_dialog()
    dialog.add_function(get_weather)
    dialog.add_function(get_time)
    dialog.parameters = {**SHORT, "max_tokens": TOOL_TOKENS, "tool_choice": "get_time"}
    dialog.append_message(Role.USER, "What is the weather in Paris?")
    events = await run(dialog)
    assert failures(events) == []
    assert [e.function_id for e in events if isinstance(e, ToolCallStarted)] == ["get_time"]
    return sent


async def run(dialog: Dialog) -> list[Event]:
    return [event async for event in dialog.run()]


def failures(events: list[Event]) -> list[str]:
    return [event.message for event in events if isinstance(event, RunFailed)]


@WIRES
async def test_a_streamed_answer_is_stored_with_its_usage(llama_server: LlamaServer, wire: str) -> None:
    center, dialog = make_dialog(llama_server, wire)
    dialog.append_message(Role.USER, "Say hello.")
    events = await run(dialog)
    assert failures(events) == []
    assert isinstance(events[-1], RunFinished)
    deltas = [event.text for event in events if isinstance(event, StreamDelta)]
    assert len(deltas) >= 2  # streamed token by token, not in one piece
    answer = dialog.last_message
    assert answer.role is Role.ASSISTANT and answer.content == "".join(deltas)
    assert answer.meta["finish_reason"] in ENDS[wire]
    usage = answer.meta["usage"]
    assert "estimated" not in usage  # llama-server reports usage on both wires
    assert usage["input_tokens"] + usage["cached_tokens"] > 0 and 0 < usage["output_tokens"] <= 12 + 1
    await center.aclose()


async def test_regenerate_gives_a_second_answer_in_a_branch(llama_server: LlamaServer) -> None:
    center, dialog = make_dialog(llama_server)
    dialog.parameters = {"max_tokens": 8, "temperature": 1.5, "seed": 1}
    dialog.append_message(Role.USER, "Name a colour.")
    assert failures(await run(dialog)) == []
    branch = center.regenerate(dialog)
    branch.parameters = {**branch.parameters, "seed": 2}
    assert branch.message_count == 1 and branch.branch_from_id == dialog.id
    assert failures(await run(branch)) == []
    assert branch.last_message.role is Role.ASSISTANT and branch.last_message.content
    assert dialog.message_count == 2  # the first answer is kept in its own dialog
    await center.aclose()


@WIRES
async def test_a_forced_tool_call_runs_and_its_result_gets_an_answer(llama_server: LlamaServer, wire: str) -> None:
    """The call is parsed by the server from the chat template's markers, under its grammar; its result goes back
    to the server, which answers in words (the second round is not forced)."""
    center, dialog = make_dialog(llama_server, wire)
    sent = observe_requests(center.get_provider(f"llama-{wire}"))  # type: ignore[arg-type]
    dialog.add_function(get_time)
    dialog.parameters = {**SHORT, "max_tokens": TOOL_TOKENS, "tool_choice": "get_time"}
    dialog.append_message(Role.USER, "What time is it in UTC?")
    events = await run(dialog)
    assert failures(events) == []
    started = [event for event in events if isinstance(event, ToolCallStarted)]
    finished = [event for event in events if isinstance(event, ToolCallFinished)]
    assert len(started) == 1 and started[0].function_id == "get_time"  # forced in the first round only
    assert len(finished) == 1 and not finished[0].is_error
    roles = [message.role for message in dialog.messages]
    assert roles == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    call = dialog.message_at(1).parsed_tool_calls()[0]
    assert call["function"]["name"] == "get_time" and json.loads(call["function"]["arguments"]) == {"tz": "UTC"}
    assert dialog.message_at(2).tool_call_id == call["id"]
    assert isinstance(events[-1], RunFinished)
    assert len(sent) == 2 and "12:00" in json.dumps(sent[1]["messages"])  # the result went back
    await center.aclose()


async def test_a_provider_added_by_address_sends_its_tools(llama_server: LlamaServer) -> None:
    """Issue 25 item 1: the model list says `input_modalities: ["text"]`, which was read as "text only", and the
    run dropped the tools and the forced choice without a word. Nothing is configured here but the address.
    Item 2: the same entry's `meta.n_ctx` (one slot's context) is the model's window (it stayed 0)."""
    document = (await asyncio.to_thread(_get_json, f"{llama_server.base_url}/models"))["data"][0]
    assert document["architecture"]["input_modalities"] == ["text"] and "supported_parameters" not in document
    assert document["meta"]["n_ctx"] == llama_server.slot_context
    center = Center()
    provider = Provider("byhand", base_url=llama_server.base_url)  # no models, no server setting
    center.add_provider(provider)
    sent = observe_requests(provider)
    dialog = center.create_dialog()
    dialog.add_function(get_time)
    dialog.parameters = {**SHORT, "max_tokens": TOOL_TOKENS, "tool_choice": "required"}
    dialog.append_message(Role.USER, "What time is it in UTC?")
    events = await run(dialog)
    assert failures(events) == [] and not [e for e in events if isinstance(e, Notice)]
    model = provider.get_model(llama_server.model_id)
    assert model is not None and Capability.TOOLS in model.capabilities
    assert model.extra["capability_sources"]["tools"] == "assumed"
    assert window(model) == (llama_server.slot_context, "server: /v1/models meta.n_ctx")
    assert [tool["function"]["name"] for tool in sent[0]["tools"]] == ["get_time"]
    assert sent[0]["tool_choice"] == "required"
    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    await center.aclose()


async def test_first_run_recognises_llama_server_and_a_named_tool_choice_is_obeyed(llama_server: LlamaServer) -> None:
    """Discovery: `owned_by` "llamacpp" and /props make it llama.cpp, with no one-run-at-a-time limit (it has
    slots), and /props says its template takes tools. Issue 25 item 5: it reads a named tool choice's object form
    as "auto" (and on /v1/messages takes `{"type": "tool"}` as any tool), so the choice goes as "required" with
    only that tool offered — and the forced tool is the one called, though the question asks for the other."""
    found = await probe_url(llama_server.address)
    assert isinstance(found, DiscoveredProvider)
    assert found.id == "llamacpp" and found.settings == {"server": "llama.cpp"}
    assert found.models == (llama_server.model_id,)
    provider = await found.learn_capabilities()
    assert provider.max_concurrent_runs == 0  # no limit
    [model] = provider.models
    assert Capability.TOOLS in model.capabilities
    assert model.extra["capability_sources"]["tools"] == "server: llama.cpp /props"
    center = Center()
    center.add_provider(provider)
    logged = len(llama_server.log_text())
    sent = await force_get_time_asking_for_the_weather(center, provider)
    assert sent[0]["tool_choice"] == "required" and [t["function"]["name"] for t in sent[0]["tools"]] == ["get_time"]
    assert "parameter 'tool_choice'" not in llama_server.log_text()[logged:]  # understood, not "Wrong type supplied"
    assert sent[1]["tool_choice"] == "auto"
    assert {t["function"]["name"] for t in sent[1]["tools"]} == {"get_time", "get_weather"}  # all tools again
    await center.aclose()


async def test_a_named_tool_choice_on_the_messages_wire_offers_only_that_tool(llama_server: LlamaServer) -> None:
    center = Center()
    provider = llama_provider(llama_server, "anthropic")
    center.add_provider(provider)
    sent = await force_get_time_asking_for_the_weather(center, provider)
    assert sent[0]["tool_choice"] == {"type": "tool", "name": "get_time"}
    assert [tool["name"] for tool in sent[0]["tools"]] == ["get_time"]
    await center.aclose()


async def test_a_tool_call_cut_by_the_output_limit_goes_back_as_an_empty_object(llama_server: LlamaServer) -> None:
    """llama-server answers a tool call whose arguments are cut JSON with HTTP 500 ("Failed to parse tool call
    arguments as JSON"), which was retried four times and then failed the run; the call goes back as {} now,
    next to the tool result that says why it did not run."""
    center, dialog = make_dialog(llama_server)
    dialog.add_function(get_time)
    dialog.parameters = {**SHORT, "max_tokens": 16, "tool_choice": "get_time"}
    dialog.append_message(Role.USER, "What time is it in UTC?")
    events = await run(dialog)
    assert failures(events) == []
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.is_error and "not valid JSON" in finished.result
    assert dialog.message_at(1).meta["finish_reason"] == "length"  # the output limit, not the context
    assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT]
    await center.aclose()


async def test_an_assistant_turn_with_tool_calls_is_taken_with_empty_or_null_content(
    llama_server: LlamaServer,
) -> None:
    """llama-cpp-python's server answered `content: null` beside tool calls with HTTP 500; llama-server takes
    both. The engine sends "" (accepted everywhere)."""
    import httpx

    body = {
        "model": llama_server.model_id,
        "max_tokens": 4,
        "messages": [
            {"role": "user", "content": "time?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"UTC"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"time":"12:00"}'},
        ],
    }
    async with httpx.AsyncClient(timeout=60, trust_env=False) as client:
        null_content = await client.post(f"{llama_server.base_url}/chat/completions", json=body)
        body["messages"][1]["content"] = ""
        empty_content = await client.post(f"{llama_server.base_url}/chat/completions", json=body)
    assert null_content.status_code == 200
    assert empty_content.status_code == 200


@WIRES
async def test_cancel_mid_stream_keeps_the_partial_answer_and_the_server_answers_again(
    llama_server: LlamaServer, wire: str
) -> None:
    center, dialog = make_dialog(llama_server, wire)
    dialog.parameters = {**SHORT, "max_tokens": 200}
    dialog.append_message(Role.USER, "Tell a long story.")
    seen: list[str] = []
    enough = asyncio.Event()

    async def consume() -> None:
        async for event in dialog.run():
            if isinstance(event, StreamDelta):
                seen.append(event.text)
                if len(seen) >= 3:
                    enough.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(enough.wait(), timeout=120)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    partial = dialog.last_message
    assert partial.role is Role.ASSISTANT and partial.meta.get("status") == "interrupted"
    assert partial.content.startswith("".join(seen[:3]))
    dialog.parameters = dict(SHORT)
    dialog.append_message(Role.USER, "Again.")
    assert failures(await run(dialog)) == []
    assert dialog.last_message.role is Role.ASSISTANT
    await center.aclose()


@WIRES
async def test_two_dialogs_asking_at_once_are_served_at_once_on_two_slots(llama_server: LlamaServer, wire: str) -> None:
    """llama-cpp-python's server cut the stream it served when a second request came, so it needed
    `max_concurrent_runs = 1`; llama-server serves one request per slot and queues the rest: nobody waits here,
    and the two answers stream at the same time."""
    center, first = make_dialog(llama_server, wire)
    second = center.create_dialog()
    times: dict[str, list[float]] = {first.id: [], second.id: []}
    for dialog in (first, second):
        dialog.parameters = {**SHORT, "max_tokens": 24}
        dialog.append_message(Role.USER, "Count to ten.")
        dialog.subscribe(
            lambda event, d=dialog.id: times[d].append(time.monotonic()) if isinstance(event, StreamDelta) else None
        )
    one, two = await asyncio.gather(run(first), run(second))
    assert failures(one) == [] and failures(two) == []
    for dialog in (first, second):
        assert dialog.last_message.role is Role.ASSISTANT and dialog.last_message.content
        assert dialog.last_message.meta["finish_reason"] in ENDS[wire]
        assert "status" not in dialog.last_message.meta
    assert not any(isinstance(event, WaitingForProvider) for event in [*one, *two])
    a, b = times[first.id], times[second.id]
    assert a[0] < b[-1] and b[0] < a[-1]  # the streams overlap: both slots answered at once
    await center.aclose()


async def test_a_comparison_of_two_models_over_both_wires(llama_server: LlamaServer) -> None:
    """The compare API asks two "models" — the server's two names for its model, one over each wire — at once."""
    center = Center()
    center.add_provider(llama_provider(llama_server, "openai"))
    center.add_provider(llama_provider(llama_server, "anthropic", model=llama_server.other_model_id))
    dialog = center.create_dialog()
    choices = [
        ModelChoice("llama-openai", llama_server.model_id),
        ModelChoice("llama-anthropic", llama_server.other_model_id),
    ]
    comparison = Comparison.ask(center, dialog, choices, "Name a fruit.")
    for column in comparison.columns:
        column.dialog.parameters = dict(SHORT)
    updates = [update async for update in comparison.run()]
    assert [column.status for column in comparison.columns] == ["finished", "finished"]
    assert not any(isinstance(update.event, WaitingForProvider) for update in updates)
    for column, choice in zip(comparison.columns, choices, strict=True):
        answer = column.answer(comparison.cut)
        assert answer is not None and answer.content
        assert (answer.meta["provider_id"], answer.meta["model_id"]) == (choice.provider_id, choice.model_id)
    pick = comparison.pick(1)
    assert (pick.winner.model_id, pick.losers[0].model_id) == (llama_server.other_model_id, llama_server.model_id)
    await center.aclose()


@WIRES
@pytest.mark.parametrize("window_known", [False, True])
async def test_an_answer_the_context_cut_short_is_not_an_output_limit(
    llama_server: LlamaServer, wire: str, window_known: bool
) -> None:
    """Issue 25 item 3: a prompt that nearly fills the slot's context and an output limit of 200 — the server stops
    when prompt plus answer reach its `n_ctx`, with the same "length" it gives for the output limit."""
    center, dialog = make_dialog(llama_server, wire)
    if window_known:
        center.get_provider(f"llama-{wire}").models[0].context_window = llama_server.slot_context  # type: ignore[union-attr]
    dialog.parameters = {**SHORT, "max_tokens": 200}
    dialog.append_message(Role.USER, " ".join(["apple banana"] * 225))
    assert failures(await run(dialog)) == []
    answer = dialog.last_message
    usage = answer.meta["usage"]
    assert usage["output_tokens"] < 200
    # input_tokens is the whole prompt on both wires (on the Messages wire: cache reads included)
    assert usage["input_tokens"] + usage["output_tokens"] == llama_server.slot_context  # what the server filled
    assert answer.meta["finish_reason"] == CONTEXT_FULL
    assert answer.meta["server_finish_reason"] == ENDS[wire][1]
    await center.aclose()


FRUITS = "Here is a list of fruits: " + ", ".join(["apple", "pear", "plum", "fig"] * 20) + "."


async def test_on_the_messages_wire_tokens_in_are_the_whole_prompt_with_its_cache_reads(
    llama_server: LlamaServer,
) -> None:
    """Issue 25 item 4: the second question of a dialog over `/v1/messages` finds its start in the slot's prompt
    cache, and the server splits the prompt into `input_tokens` (after the cache) and `cache_read_input_tokens`;
    "in" counted only the first. The same messages over chat completions give the whole prompt as
    `prompt_tokens`: one rule, the same figure on both wires."""
    center = Center()
    center.add_provider(llama_provider(llama_server, "anthropic"))
    center.add_provider(llama_provider(llama_server, "openai"))
    dialog = center.create_dialog()
    dialog.provider_id = "llama-anthropic"
    dialog.parameters = {**SHORT, "max_tokens": 8}
    for question in (FRUITS, "And which is the sweetest?"):
        dialog.append_message(Role.USER, question)
        assert failures(await run(dialog)) == []
    usage = dialog.last_message.meta["usage"]
    assert usage["cached_tokens"] > 0  # the first turn's prompt came from the server's cache
    over_openai = center.regenerate(dialog)  # the same three messages, asked over chat completions
    over_openai.provider_id = "llama-openai"
    assert failures(await run(over_openai)) == []
    assert over_openai.last_message.meta["provider_id"] == "llama-openai"
    assert usage["input_tokens"] == over_openai.last_message.meta["usage"]["input_tokens"]
    await center.aclose()


async def test_a_request_the_server_cannot_parse_is_not_retried(llama_server: LlamaServer) -> None:
    """A validation error (here a temperature the server refuses) is shown at once with the server's words."""
    center, dialog = make_dialog(llama_server, extra_body={"temperature": "hot"}, retry_base_delay=5.0)
    dialog.append_message(Role.USER, "hi")
    loop = asyncio.get_running_loop()
    started = loop.time()
    events = await run(dialog)
    elapsed = loop.time() - started
    [message] = failures(events)
    assert "temperature" in message and "try again shortly" not in message
    assert elapsed < 5.0  # no backoff: a retry would have waited at least retry_base_delay
    await center.aclose()


def _get_json(url: str) -> Any:
    import httpx

    return httpx.get(url, timeout=10, trust_env=False).json()


def test_the_server_lists_its_model(llama_server: LlamaServer) -> None:
    document = _get_json(f"{llama_server.base_url}/models")
    assert [entry["id"] for entry in document["data"]] == [llama_server.model_id]
    assert document["data"][0]["owned_by"] == "llamacpp"
    assert json.dumps(document)  # a plain JSON list, as first-run discovery expects
    props = _get_json(f"{llama_server.address}/props")
    assert props["total_slots"] == llama_server.slots
    assert props["default_generation_settings"]["n_ctx"] == llama_server.slot_context
    assert props["chat_template_caps"]["supports_tools"] is True  # gemma_tools.jinja
