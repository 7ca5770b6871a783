"""The OpenAI-compatible adapter against a real loopback server: streaming, tools, reasoning, usage, failures."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.llm_server import (
    LLMServer,
    Reply,
    error_reply,
    json_reply,
    openai_chunk,
    openai_stream,
    openai_tool_call,
    sse_reply,
)
from visindigo.engine import (
    Capability,
    Center,
    Dialog,
    Event,
    MessageAppended,
    ModelInfo,
    Provider,
    Role,
    RunFailed,
    RunFinished,
    Skill,
    StreamBegan,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
    UsageReported,
)
from visindigo.engine.commands import command
from visindigo.engine.message import Image, Message
from visindigo.engine.providers import ProviderError, list_models

KEY = "sk-test-abcdefghijklmnopqrstuvwxyz0123456789"
ALL = Capability.TEXT | Capability.TOOLS | Capability.IMAGE | Capability.REASONING


@command()
def get_time(tz: str) -> dict[str, str]:
    """Current time in a time zone."""
    return {"tz": tz, "time": "12:00"}


def setup(
    server: LLMServer,
    *,
    models: list[ModelInfo] | None = None,
    settings: dict[str, Any] | None = None,
    **kwargs: Any,
) -> tuple[Center, Dialog, Provider]:
    center = Center()
    provider = Provider(
        "local",
        kind="openai",
        name="Local",
        base_url=server.openai_url,
        api_key=kwargs.pop("api_key", KEY),
        models=[ModelInfo("test-model", capabilities=ALL)] if models is None else models,
        settings={"retry_base_delay": 0.01, **(settings or {})},
        **kwargs,
    )
    center.add_provider(provider)
    dialog = center.create_dialog()
    return center, dialog, provider


async def run(dialog: Dialog) -> list[Event]:
    return [event async for event in dialog.run()]


def failure(events: list[Event]) -> str:
    assert isinstance(events[-1], RunFailed), events[-1]
    assert not any(isinstance(e, StreamEnded) for e in events)
    return events[-1].message


# --- a plain answer ---------------------------------------------------------------------------------------


async def test_streams_text_and_sends_a_well_formed_request(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["Hel", "lo", " there"], usage=(9, 3)))
    center, dialog, _ = setup(llm_server, headers={"X-Team": "blue"})
    center.add_skill(Skill("style", "Be brief."))
    dialog.append_message(Role.USER, "hi")
    dialog.append_message(Message(Role.PROMPT, "Summarise: x", name="summary"))
    events = await run(dialog)
    assert events == [
        StreamBegan(),
        StreamDelta("Hel"),
        StreamDelta("lo"),
        StreamDelta(" there"),
        UsageReported(9, 3, 0, 0),
        MessageAppended(2),
        StreamEnded("Hello there"),
        RunFinished(),
    ]
    answer = dialog.last_message
    assert answer.content == "Hello there"
    assert answer.meta["provider_id"] == "local" and answer.meta["model_id"] == "test-model"
    usage = answer.meta["usage"]
    assert {k: usage.pop(k) for k in ("answer", "at")}.keys() == {"answer", "at"}  # an id, a time
    assert usage == {
        "input_tokens": 9,
        "output_tokens": 3,
        "reasoning_tokens": 0,
        "cached_tokens": 0,
        "cache_write_tokens": 0,
    }
    request = llm_server.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["x-team"] == "blue"
    assert request.json == {
        "model": "test-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {"role": "user", "content": "Summarise: x"},
        ],
    }
    await center.aclose()


async def test_without_a_key_no_authorization_header_is_sent(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["ok"]))
    _, dialog, _ = setup(llm_server, api_key=None)
    dialog.append_message(Role.USER, "hi")
    await run(dialog)
    assert "authorization" not in llm_server.requests[0].headers


async def test_the_key_can_come_from_a_named_environment_variable(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISINDIGO_TEST_KEY", "sk-from-env-0000000000")
    llm_server.queue(openai_stream(["ok"]))
    _, dialog, provider = setup(llm_server, api_key=None, api_key_env="VISINDIGO_TEST_KEY")
    assert "sk-from-env" not in repr(provider)
    dialog.append_message(Role.USER, "hi")
    await run(dialog)
    assert llm_server.requests[0].headers["authorization"] == "Bearer sk-from-env-0000000000"


@pytest.mark.parametrize("source", ["explicit", "environment"])
async def test_whitespace_around_a_key_is_not_part_of_it(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    pasted = f"  {KEY}\n"
    monkeypatch.setenv("VISINDIGO_TEST_KEY", pasted)
    llm_server.queue(openai_stream(["ok"]))
    if source == "explicit":
        _, dialog, _ = setup(llm_server, api_key=pasted)
    else:
        _, dialog, _ = setup(llm_server, api_key=None, api_key_env="VISINDIGO_TEST_KEY")
    dialog.append_message(Role.USER, "hi")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_sse_comments_crlf_and_data_without_space_are_read(llm_server: LLMServer) -> None:
    llm_server.queue(
        sse_reply(
            [
                ": OPENROUTER PROCESSING\r\n\r\n",
                "data:" + json.dumps(openai_chunk({"content": "a"})) + "\r\n\r\n",
                openai_chunk({"content": "b"}),
                "data:  " + json.dumps(openai_chunk({"content": "c"})) + "  \n\n",
                openai_chunk({}, "stop"),
                "data: [DONE]\n\n",
            ]
        )
    )
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert dialog.last_message.content == "abc"


async def test_a_server_that_ignores_stream_true_is_read_as_one_document(llm_server: LLMServer) -> None:
    document = {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "<think>hmm</think>whole", "tool_calls": None},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2},
    }
    llm_server.queue(json_reply(document))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "hi")
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    assert (dialog.last_message.content, dialog.last_message.reasoning) == ("whole", "hmm")


# --- tool calls -------------------------------------------------------------------------------------------


async def test_tool_call_fragments_are_assembled_and_results_go_back(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_stream(
            ["Checking."],
            tool_calls=[
                *openai_tool_call("call_A", "get_time", ['{"tz":', '"UTC"}'], index=0),
                *openai_tool_call("call_B", "get_time", ['{"tz":"CET"}'], index=1),
            ],
            finish="tool_calls",
        ),
        openai_stream(["UTC and CET: 12:00"]),
    )
    _, dialog, _ = setup(llm_server)
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "time?")
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    first = llm_server.requests[0].json
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_time",
                "description": "Current time in a time zone.",
                "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
            },
        }
    ]
    second = llm_server.requests[1].json["messages"]
    assert second[1] == {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {"id": "call_A", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"UTC"}'}},
            {"id": "call_B", "type": "function", "function": {"name": "get_time", "arguments": '{"tz":"CET"}'}},
        ],
    }
    assert second[2:] == [
        {"role": "tool", "tool_call_id": "call_A", "content": '{"tz":"UTC","time":"12:00"}'},
        {"role": "tool", "tool_call_id": "call_B", "content": '{"tz":"CET","time":"12:00"}'},
    ]
    assert dialog.last_message.content == "UTC and CET: 12:00"


async def test_tool_call_quirks_of_compatible_servers(llm_server: LLMServer) -> None:
    whole = openai_chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "w1", "type": "function", "function": {"name": "get_time", "arguments": ""}}
            ]
        }
    )
    repeated = [
        openai_chunk({"tool_calls": [{"index": 1, "id": "r1", "function": {"name": "get_time", "arguments": ""}}]}),
        openai_chunk({"tool_calls": [{"index": 1, "id": "r1", "function": {"arguments": '{"tz"'}}]}),
        openai_chunk({"tool_calls": [{"index": 1, "id": "r1", "function": {"arguments": ':"UTC"}'}}]}),
    ]
    complete = openai_chunk(  # id, name and all the arguments in one fragment
        {"tool_calls": [{"index": 2, "id": "c1", "function": {"name": "get_time", "arguments": '{"tz":"JST"}'}}]}
    )
    no_index = [
        openai_chunk({"tool_calls": [{"id": "n1", "function": {"name": "get_time", "arguments": '{"tz":'}}]}),
        openai_chunk({"tool_calls": [{"function": {"arguments": '"CET"}'}}]}),
    ]
    # finish_reason "stop" although calls arrived: what counts is that calls arrived
    llm_server.queue(
        openai_stream(tool_calls=[whole, *repeated, complete, *no_index], finish="stop"), openai_stream(["done"])
    )
    _, dialog, _ = setup(llm_server)
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "go")
    await run(dialog)
    calls = dialog.message_at(1).parsed_tool_calls()
    assert [(c["id"], c["function"]["arguments"]) for c in calls] == [
        ("w1", "{}"),
        ("r1", '{"tz":"UTC"}'),
        ("c1", '{"tz":"JST"}'),
        ("n1", '{"tz":"CET"}'),
    ]
    results = [m for m in dialog.messages if m.role is Role.TOOL]
    assert "invalid arguments" in results[0].content  # "" became {} and {} lacks the required tz
    assert [m.content for m in results[1:]] == [
        '{"tz":"UTC","time":"12:00"}',
        '{"tz":"JST","time":"12:00"}',
        '{"tz":"CET","time":"12:00"}',
    ]


# --- reasoning --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_is_stored_on_the_message_and_not_sent_back(llm_server: LLMServer, field: str) -> None:
    llm_server.queue(openai_stream(["42"], reasoning=["Let me ", "think."], reasoning_field=field))
    llm_server.queue(openai_stream(["ok"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert [e.text for e in events if isinstance(e, StreamReasoning)] == ["Let me ", "think."]
    assert (dialog.last_message.content, dialog.last_message.reasoning) == ("42", "Let me think.")
    dialog.append_message(Role.USER, "and?")
    await run(dialog)
    sent = llm_server.requests[1].json["messages"]
    assert sent[1] == {"role": "assistant", "content": "42"}
    assert "Let me" not in json.dumps(llm_server.requests[1].json)


async def test_deepseek_setting_resends_reasoning_only_with_tool_calls(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_stream(
            reasoning=["need the time"],
            tool_calls=openai_tool_call("c1", "get_time", ['{"tz":"UTC"}']),
            finish="tool_calls",
        ),
        openai_stream(["It is noon."], reasoning=["done thinking"]),
        openai_stream(["bye"]),
    )
    _, dialog, _ = setup(llm_server, settings={"send_reasoning_with_tool_calls": True})
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "time?")
    await run(dialog)
    dialog.append_message(Role.USER, "thanks")
    await run(dialog)
    messages = llm_server.requests[2].json["messages"]
    assert messages[1]["reasoning_content"] == "need the time"  # the tool-call turn keeps its reasoning
    assert "reasoning_content" not in messages[3]  # the plain answer does not
    assert messages[3]["content"] == "It is noon."


async def test_inline_think_tags_split_across_chunks(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["\n<thi", "nk>I pon", "der</th", "ink>\n\nAnswer", " <think>kept</think>"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert "".join(e.text for e in events if isinstance(e, StreamReasoning)) == "I ponder"
    assert dialog.last_message.content == "Answer <think>kept</think>"
    assert dialog.last_message.reasoning == "I ponder"


async def test_a_model_that_starts_inside_the_thought(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["thinking already", "</think>", "The answer."]))
    model = ModelInfo("r1", capabilities=ALL, starts_in_thinking=True)
    _, dialog, _ = setup(llm_server, models=[model])
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    assert (dialog.last_message.reasoning, dialog.last_message.content) == ("thinking already", "The answer.")


async def test_a_starts_in_thinking_model_behind_a_server_that_separates_reasoning(llm_server: LLMServer) -> None:
    # llama.cpp --reasoning-format deepseek: the thought comes in reasoning_content, the content is the answer
    llm_server.queue(openai_stream(["The answer."], reasoning=["thought"]))
    model = ModelInfo("r1", capabilities=ALL, starts_in_thinking=True)
    _, dialog, _ = setup(llm_server, models=[model])
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert [e.text for e in events if isinstance(e, StreamDelta)] == ["The answer."]
    assert (dialog.last_message.reasoning, dialog.last_message.content) == ("thought", "The answer.")


async def test_openrouter_reasoning_details_go_back_with_tool_calls_to_the_same_provider(
    llm_server: LLMServer,
) -> None:
    detail = {"type": "reasoning.encrypted", "data": "opaque==", "index": 0, "format": "x"}
    with_details = [
        openai_chunk({"reasoning": "sum", "reasoning_details": [{**detail, "data": "opa"}]}),
        openai_chunk({"reasoning_details": [{**detail, "data": "que=="}]}),
    ]
    llm_server.queue(
        openai_stream(
            before=with_details, tool_calls=openai_tool_call("c1", "get_time", ['{"tz":"UTC"}']), finish="tool_calls"
        ),
        openai_stream(["noon"], before=with_details),
        openai_stream(["again"]),
        openai_stream(["other"]),
    )
    center, dialog, _ = setup(llm_server)
    dialog.add_function(get_time)
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    assert dialog.message_at(1).meta["provider_data"]["reasoning_details"] == [detail]
    assert llm_server.requests[1].json["messages"][1]["reasoning_details"] == [detail]
    dialog.append_message(Role.USER, "more")
    await run(dialog)
    sent = llm_server.requests[2].json["messages"]
    assert sent[1]["reasoning_details"] == [detail]  # the tool-call turn keeps them
    assert sent[3] == {"role": "assistant", "content": "noon"}  # a plain answer does not

    other = Provider("other", kind="openai", base_url=llm_server.openai_url, models=[ModelInfo("test-model")])
    center.add_provider(other)
    dialog.provider_id = "other"
    dialog.append_message(Role.USER, "elsewhere")
    await run(dialog)
    assert "reasoning_details" not in json.dumps(llm_server.requests[3].json)
    await center.aclose()


# --- usage ------------------------------------------------------------------------------------------------


async def test_a_server_rejecting_stream_options_is_asked_again_without_it(llm_server: LLMServer) -> None:
    llm_server.queue(
        error_reply(400, "Unrecognized request argument supplied: stream_options"),
        openai_stream(["fine"]),
        openai_stream(["still fine"]),
    )
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    assert isinstance((await run(dialog))[-1], RunFinished)
    dialog.append_message(Role.USER, "q2")
    await run(dialog)
    assert [("stream_options" in r.json) for r in llm_server.requests] == [True, False, False]


async def test_detailed_usage_is_reported(llm_server: LLMServer) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 50,
        "total_tokens": 150,
        "completion_tokens_details": {"reasoning_tokens": 30},
        "prompt_tokens_details": {"cached_tokens": 64},
    }
    llm_server.queue(openai_stream(["x"], after=[openai_chunk(usage=usage, choices=False)]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    events = await run(dialog)
    assert UsageReported(100, 50, 30, 64) in events


async def test_max_tokens_and_extra_body_settings(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["x"]))
    model = ModelInfo("test-model", capabilities=ALL, max_output_tokens=512, extra={"extra_body": {"top_p": 0.5}})
    settings = {"max_tokens_field": "max_completion_tokens", "extra_body": {"reasoning_effort": "high"}}
    _, dialog, _ = setup(llm_server, models=[model], settings=settings)
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    body = llm_server.requests[0].json
    assert body["max_completion_tokens"] == 512 and "max_tokens" not in body
    assert body["reasoning_effort"] == "high" and body["top_p"] == 0.5


# --- images -----------------------------------------------------------------------------------------------


async def test_images_go_as_data_urls_to_image_models(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["a cat"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Message(Role.USER, "what is this?", images=[Image("image/png", "iVBORw0KGgo=")]))
    await run(dialog)
    assert llm_server.requests[0].json["messages"][0]["content"] == [
        {"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]


async def test_an_image_never_reaches_a_model_without_image_support(llm_server: LLMServer) -> None:
    _, dialog, _ = setup(llm_server, models=[ModelInfo("text-only", capabilities=Capability.TEXT)])
    dialog.append_message(Message(Role.USER, "what is this?", images=[Image("image/png", "iVBORw0KGgo=")]))
    message = failure(await run(dialog))
    assert "image" in message and "pick another model" in message
    assert llm_server.requests == []


# --- HTTP errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "shape", "server_text", "hint"),
    [
        (401, "openai", f"Incorrect API key provided: {KEY}.", "refused the API key"),
        (404, "vllm", "The model `nope` does not exist.", "check the base URL"),
        (400, "ollama", "model 'nope' not found", "rejected the request"),
        (402, "openrouter", "Insufficient credits", "no credit"),
        (403, "text", "<html>Forbidden</html>", "refused the API key"),
    ],
)
async def test_http_errors_give_actionable_messages_without_the_key(
    llm_server: LLMServer, status: int, shape: str, server_text: str, hint: str
) -> None:
    llm_server.queue(error_reply(status, server_text, shape=shape))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    message = failure(await run(dialog))
    assert message.startswith("Local: ")
    assert hint in message and f"HTTP {status}" in message
    assert KEY not in message and KEY[:20] not in message
    assert KEY not in repr(heard)
    assert len(llm_server.requests) == 1  # client errors are not retried
    assert dialog.message_count == 1  # nothing arrived, nothing appended
    assert not dialog.is_running


async def test_a_shortened_key_echoed_by_the_server_is_redacted(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(401, f"Incorrect API key provided: {KEY[:12]}****{KEY[-4:]}"))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert KEY[:12] not in message and "[redacted]" in message


async def test_a_credential_in_an_extra_header_is_redacted_too(llm_server: LLMServer) -> None:
    azure_key = "azure-0123456789abcdef0123"
    llm_server.queue(error_reply(401, f"Access denied due to invalid subscription key {azure_key}."))
    _, dialog, _ = setup(llm_server, api_key=None, headers={"api-key": azure_key, "X-Team": "blue-team-visible"})
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert azure_key not in message and "[redacted]" in message
    assert llm_server.requests[0].headers["api-key"] == azure_key


async def test_openrouter_upstream_details_are_shown(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(502, "Provider returned error", shape="openrouter"))
    _, dialog, _ = setup(llm_server, settings={"max_retries": 0})
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "Provider returned error [upstream: Upstream]" in message and "try again" in message


async def test_429_is_retried_honouring_retry_after(llm_server: LLMServer) -> None:
    llm_server.queue(
        error_reply(429, "Rate limit reached", retry_after="0.2"),
        error_reply(503, "overloaded", shape="vllm"),
        openai_stream(["finally"]),
    )
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    loop = asyncio.get_running_loop()
    started = loop.time()
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished) and dialog.last_message.content == "finally"
    assert loop.time() - started >= 0.2
    assert len(llm_server.requests) == 3
    assert sum(isinstance(e, StreamBegan) for e in events) == 1  # retries are invisible to the dialog


async def test_retries_are_bounded(llm_server: LLMServer) -> None:
    llm_server.queue(*[error_reply(500, "boom", shape="ollama") for _ in range(5)])
    _, dialog, _ = setup(llm_server, settings={"max_retries": 2})
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "server failed" in message and "boom" in message
    assert len(llm_server.requests) == 3


async def test_backoff_doubles_without_retry_after(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(500, "a"), error_reply(502, "b"), openai_stream(["third time"]))
    _, dialog, _ = setup(llm_server, settings={"retry_base_delay": 0.15})
    dialog.append_message(Role.USER, "q")
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert loop.time() - started >= 0.15 + 0.3  # 0.15 s, then 0.3 s
    assert len(llm_server.requests) == 3


async def test_a_long_retry_after_fails_at_once_saying_how_long(llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(429, "quota", retry_after="3600"), openai_stream(["never"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "3600 s" in message and len(llm_server.requests) == 1


# --- broken streams ---------------------------------------------------------------------------------------


async def test_an_error_object_mid_stream_keeps_the_text_so_far(llm_server: LLMServer) -> None:
    llm_server.queue(
        openai_stream(["partial "], after=[{"error": {"message": "upstream timeout", "code": 504}}], finish=None)
    )
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "upstream timeout" in message
    kept = dialog.last_message
    assert (kept.role, kept.content, kept.meta["status"]) == (Role.ASSISTANT, "partial ", "incomplete")


async def test_openrouter_finish_reason_error_is_a_failure(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["so far"], finish="error"))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    assert "error mid-answer" in failure(await run(dialog))
    assert dialog.last_message.content == "so far"


async def test_an_invalid_data_line_is_a_failure_that_keeps_the_text(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["good "], after=["data: {this is not json\n\n"]))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "not JSON" in message and "{this is not json" in message
    assert dialog.last_message.content == "good "


async def test_a_stream_cut_in_the_middle_of_a_json_line(llm_server: LLMServer) -> None:
    reply = openai_stream(["before cut"], finish=None, done=False, after=['data: {"choices":[{"del'], cut=True)
    llm_server.queue(reply)
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "broke in the middle of the answer" in message or "not JSON" in message
    assert dialog.last_message.content == "before cut"
    assert dialog.last_message.meta["status"] == "incomplete"


async def test_no_finish_reason_is_an_incomplete_answer(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["half"], finish=None))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    assert "incomplete" in failure(await run(dialog))
    assert dialog.last_message.meta["status"] == "incomplete"


async def test_no_done_marker_is_fine_when_the_finish_reason_came(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["whole"], done=False))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    assert isinstance((await run(dialog))[-1], RunFinished)


async def test_a_200_that_is_not_an_event_stream(llm_server: LLMServer) -> None:
    llm_server.queue(Reply(chunks=[b"<html>login page</html>"], content_type="text/html"))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    assert "instead of an event stream" in failure(await run(dialog))


# --- connection problems ----------------------------------------------------------------------------------


async def test_a_provider_without_a_base_url_is_told_to_set_one(llm_server: LLMServer) -> None:
    _, dialog, provider = setup(llm_server)
    provider.base_url = ""
    dialog.append_message(Role.USER, "q")
    assert "the provider has no base URL; set one" in failure(await run(dialog))


async def test_read_timeout_on_a_slow_first_byte(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["late"], delay_first_byte=1.0))
    _, dialog, _ = setup(llm_server, read_timeout=0.2)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "read timeout" in message and "0.2 s" in message


async def test_read_timeout_mid_stream_keeps_the_text(llm_server: LLMServer) -> None:
    stream = openai_stream(["one ", "two"])
    head, tail = b"".join(stream.chunks[:2]), b"".join(stream.chunks[2:])
    llm_server.queue(Reply(chunks=[head, tail], delay_between=0.6))
    _, dialog, _ = setup(llm_server, read_timeout=0.3)
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "read timeout" in message and "the answer so far was kept" in message
    assert (dialog.last_message.content, dialog.last_message.meta["status"]) == ("one ", "incomplete")


async def test_cancel_closes_the_stream_and_keeps_the_partial_answer(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["first ", "second ", "third"], delay_between=0.3))
    _, dialog, _ = setup(llm_server)
    dialog.append_message(Role.USER, "q")

    async def consume() -> None:
        async for _ in dialog.run():
            pass

    task = asyncio.create_task(consume())
    while "first" not in dialog.streaming_content:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert dialog.last_message.content == "first "
    assert dialog.last_message.meta["status"] == "interrupted"


# --- models -----------------------------------------------------------------------------------------------


async def test_the_endpoint_model_list_is_merged_with_the_config(llm_server: LLMServer) -> None:
    llm_server.models = ["configured", "extra-1", "extra-2"]
    _, _, provider = setup(llm_server, models=[ModelInfo("configured", capabilities=ALL, context_window=8192)])
    models = await list_models(provider)
    assert [m.id for m in models] == ["configured", "extra-1", "extra-2"]
    assert models[0].context_window == 8192 and models[0].capabilities == ALL
    assert models[1].capabilities == Capability.TEXT | Capability.TOOLS
    assert llm_server.requests[0].path == "/v1/models"
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    await provider.aclose()


async def test_a_redirected_model_listing_is_explained(llm_server: LLMServer) -> None:
    llm_server.models_reply = Reply(status=301, content_type="text/plain", headers={"Location": "https://x.test/v1/models"})
    _, _, provider = setup(llm_server)
    with pytest.raises(ProviderError, match=r"redirects to https://x.test/v1/models .*base URL to https://x.test/v1\."):
        await list_models(provider)
    await provider.aclose()


async def test_a_provider_without_configured_models_lists_them_before_the_first_run(llm_server: LLMServer) -> None:
    llm_server.models = ["served-model"]
    llm_server.queue(openai_stream(["hi"]))
    _, dialog, provider = setup(llm_server, models=[])
    dialog.append_message(Role.USER, "q")
    assert isinstance((await run(dialog))[-1], RunFinished)
    assert llm_server.requests[1].json["model"] == "served-model"
    assert provider.models_listed and [m.id for m in provider.models] == ["served-model"]


async def test_listing_failure_is_explained_when_no_model_is_known(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(401, "bad key")
    _, dialog, _ = setup(llm_server, models=[])
    dialog.append_message(Role.USER, "q")
    message = failure(await run(dialog))
    assert "has no models" in message and "listing the models failed" in message and "HTTP 401" in message


async def test_center_aclose_closes_the_client_and_a_later_run_opens_a_new_one(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["a"]), openai_stream(["b"]))
    center, dialog, provider = setup(llm_server)
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    client = provider.adapter.http.client  # type: ignore[attr-defined]
    await center.aclose()
    assert client.is_closed
    await center.aclose()  # twice is fine
    await run(dialog)
    assert dialog.last_message.content == "b"
    await center.aclose()


async def test_a_failed_listing_is_not_repeated_when_configured_models_exist(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(500, "down", shape="ollama")
    llm_server.queue(openai_stream(["a"]), openai_stream(["b"]))
    _, dialog, _ = setup(llm_server, settings={"max_retries": 0})
    dialog.model_id = "not-configured"
    dialog.append_message(Role.USER, "q")
    await run(dialog)
    await run(dialog)
    paths = [r.path for r in llm_server.requests]
    assert paths == ["/v1/models", "/v1/chat/completions", "/v1/chat/completions"]
    assert llm_server.requests[1].json["model"] == "test-model"
