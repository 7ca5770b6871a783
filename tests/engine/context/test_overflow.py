"""A server's "context length exceeded", in each server's own words, becomes one ContextExceeded."""

from __future__ import annotations

import json

import pytest

from tests.llm_server import LLMServer, Reply, error_reply
from visindigo.engine import Center, ContextExceeded, ModelInfo, Provider, Role, RunFailed
from visindigo.engine.context.overflow import overflow_in
from visindigo.engine.providers.windows import window

#: (server, HTTP reply, window, request tokens) — each wording as its server sends it.
WORDINGS = [
    (
        "llama.cpp",
        Reply(
            status=400,
            content_type="application/json",
            chunks=[
                json.dumps(
                    {
                        "error": {
                            "code": 400,
                            "message": "request (724 tokens) exceeds the available context size (512 tokens), "
                            "try increasing it",
                            "type": "exceed_context_size_error",
                            "n_prompt_tokens": 724,
                            "n_ctx": 512,
                        }
                    }
                ).encode()
            ],
        ),
        512,
        724,
    ),
    (
        "vllm",
        error_reply(
            400,
            "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens (2000 in the "
            "messages, 100 in the completion). Please reduce the length of the messages or completion.",
            shape="vllm",
        ),
        2048,
        2100,
    ),
    (
        "vllm, newer",
        error_reply(
            400,
            "'max_tokens' or 'max_completion_tokens' is too large: 100. This model's maximum context length is 2048 "
            "tokens and your request has 2000 input tokens (100 > 2048 - 2000).",
            shape="vllm",
        ),
        2048,
        2000,
    ),
    (
        "openai",
        error_reply(
            400,
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130210 "
            "tokens. Please reduce the length of the messages.",
        ),
        128000,
        130210,
    ),
    (
        "anthropic",
        error_reply(400, "prompt is too long: 210000 tokens > 200000 maximum", shape="anthropic"),
        200000,
        210000,
    ),
    (
        "anthropic, with max_tokens",
        error_reply(
            400,
            "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or "
            "`max_tokens` and try again",
            shape="anthropic",
        ),
        200000,
        205192,
    ),
    (
        "openrouter",
        error_reply(
            400,
            "This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens "
            "(130000 of text input, 10000 in the output). Please reduce the length of either one, or use the "
            '"middle-out" transform to compress your prompt automatically.',
            shape="openrouter",
        ),
        131072,
        140000,
    ),
    ("ollama", error_reply(400, "input length exceeds the context length", shape="ollama"), 0, 0),
    (
        "lm studio",
        error_reply(
            400,
            "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with "
            "context length of only 4096 tokens, which is not enough. Try to load the model with a larger context "
            "length, or provide a shorter input",
        ),
        4096,
        0,
    ),
]


@pytest.mark.parametrize(("server", "reply", "window_tokens", "request_tokens"), WORDINGS, ids=[w[0] for w in WORDINGS])
async def test_each_wording_becomes_one_context_exceeded(
    llm_server: LLMServer, server: str, reply: Reply, window_tokens: int, request_tokens: int
) -> None:
    kind = "anthropic" if server.startswith("anthropic") else "openai"
    model = ModelInfo("m", context_window=8192)
    center = Center()
    center.add_provider(Provider("p", kind=kind, name="Box", base_url=llm_server.openai_url, models=[model]))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "a long question")
    llm_server.queue(reply)
    events = [event async for event in dialog.run()]
    failures = [event for event in events if isinstance(event, RunFailed)]
    assert len(failures) == 1 and isinstance(failures[0], ContextExceeded)
    failure = failures[0]
    assert failure.request_tokens == request_tokens or (not request_tokens and failure.request_tokens > 0)
    assert failure.window == (window_tokens or 8192)  # the server's figure, else the model's
    if window_tokens:
        assert window(model) == (window_tokens, "learnt: the server's context error")
        assert f"({window_tokens:,} tokens)" in failure.message
    if request_tokens:
        assert f"the request ({request_tokens:,} tokens)" in failure.message
    else:  # the server did not say: the count made here, marked as such
        assert f"the request (~{failure.request_tokens:,} tokens, counted here)" in failure.message
    assert "compact the dialog into a branch" in failure.message
    assert [m.role for m in dialog.messages] == [Role.USER]  # the question stays, nothing else was added
    assert len(llm_server.requests) == 1  # not retried: it would fail the same way


def test_other_failures_are_not_overflows() -> None:
    assert overflow_in("the server refused the API key (HTTP 401)") is None
    assert overflow_in("model 'x' not found, try pulling it first") is None
    assert overflow_in("this model supports a context window of 8k; your tools are invalid") is None
