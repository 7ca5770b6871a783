"""Counting a request before it is sent, and the check a UI calls: fits, tight, over, unknown."""

from __future__ import annotations

from typing import Any

from tests.engine.context.servers import LLAMA_MODEL, serve_llama
from tests.llm_server import LLMServer, json_reply, openai_stream
from visindigo.engine import Center, ModelInfo, Provider, Role, Skill, StreamBegan
from visindigo.engine.context.fit import check_fit, check_fit_exactly


def llama_dialog(server: LLMServer, n_ctx: int = 512, **settings: Any) -> Any:
    serve_llama(server, n_ctx)
    center = Center()
    model = ModelInfo(LLAMA_MODEL, max_output_tokens=64)
    center.add_provider(
        Provider(
            "l", kind="openai", base_url=server.openai_url, models=[model], settings={"server": "llama.cpp", **settings}
        )
    )
    return center, center.create_dialog()


def tokenize_by_words(request: Any) -> Any:
    return json_reply({"tokens": list(range(len(request.json["content"].split())))})


def apply_template(request: Any) -> Any:
    """A chat template of two marks a message and one for the generation prompt, counted as words."""
    rendered = " ".join(f"<{m['role']}> {m['content']} </>" for m in request.json["messages"])
    return json_reply({"prompt": f"{rendered} <assistant>"})


def serve_tokenizer(server: LLMServer) -> None:
    server.route("POST", "/tokenize", tokenize_by_words)
    server.route("POST", "/apply-template", apply_template)


async def test_the_server_tokenizer_counts_each_message_once(llm_server: LLMServer) -> None:
    serve_tokenizer(llm_server)
    center, dialog = llama_dialog(llm_server)
    for number in range(20):
        dialog.append_message(Role.USER if number % 2 == 0 else Role.ASSISTANT, "one two three four five")
    fit = await check_fit_exactly(center, dialog)
    assert fit is not None and not fit.approximate and fit.count_source == "server tokenizer"
    assert fit.used == 20 * (5 + 2) + 1  # five words a message, two of template around each, one to answer
    assert (fit.window, fit.window_source) == (512, "server: llama.cpp /props (n_ctx of one slot)")
    assert fit.status == "fits" and fit.room == 64
    asked = sum(r.path == "/tokenize" for r in llm_server.requests)
    assert asked == 1 + 4  # twenty messages, one text: counted once (and the template measured once)
    dialog.append_message(Role.USER, "six seven")
    fit = await check_fit_exactly(center, dialog)
    assert fit is not None and fit.used == 20 * 7 + 1 + 2 + 2
    assert sum(r.path == "/tokenize" for r in llm_server.requests) == 2 + 4  # only the new text


async def test_a_dialog_that_will_not_fit_is_over_and_one_near_the_end_is_tight(llm_server: LLMServer) -> None:
    serve_tokenizer(llm_server)
    center, dialog = llama_dialog(llm_server)
    dialog.append_message(Role.USER, " ".join(["word"] * 450))
    fit = await check_fit_exactly(center, dialog)
    assert fit is not None and fit.status == "tight" and fit.used == 453  # 453 + 64 for the answer > 512
    assert 0.8 < fit.fraction < 0.95
    fit = await check_fit_exactly(center, dialog, draft=" ".join(["more"] * 100))
    assert fit is not None and fit.status == "over" and not fit.fits and fit.used == 453 + 102


async def test_reported_usage_anchors_the_next_count(llm_server: LLMServer) -> None:
    center, dialog = llama_dialog(llm_server)
    dialog.add_skill(Skill("terse", "Answer briefly."))
    dialog.append_message(Role.USER, "hello there")
    llm_server.queue(openai_stream(["Hi", " you"], usage=(300, 2)))
    events = [event async for event in dialog.run()]
    began = next(event for event in events if isinstance(event, StreamBegan))
    assert began.request_tokens > 0 and began.request_approximate  # issue 25 item 6: the estimate while it streams
    fit = check_fit(center, dialog, draft="and now?")
    assert fit is not None and fit.count_source == "reported usage" and fit.approximate
    # 300 reported for the prefix; the answer and the new question counted on top of it
    assert 300 < fit.used < 330
    dialog.remove_skill("terse")  # another system prompt: the anchor no longer applies
    fit = check_fit(center, dialog, draft="and now?")
    assert fit is not None and fit.count_source == "estimate"


async def test_anthropic_counts_the_whole_request_with_count_tokens(llm_server: LLMServer) -> None:
    llm_server.route("POST", "/v1/messages/count_tokens", json_reply({"input_tokens": 1234}))
    center = Center()
    model = ModelInfo("claude-sonnet-4-20250514", max_output_tokens=4096)
    center.add_provider(Provider("a", kind="anthropic", base_url=llm_server.anthropic_url, api_key="k", models=[model]))
    dialog = center.create_dialog()
    dialog.add_skill(Skill("terse", "Answer briefly."))
    dialog.append_message(Role.USER, "hello")
    fit = await check_fit_exactly(center, dialog)
    assert fit is not None and (fit.used, fit.approximate, fit.count_source) == (1234, False, "Anthropic count_tokens")
    assert fit.window == 200000 and fit.window_source.startswith("known: Claude Sonnet 4")
    [asked] = [r for r in llm_server.requests if r.path == "/v1/messages/count_tokens"]
    assert asked.json["system"] and asked.json["messages"][0]["role"] == "user" and "max_tokens" not in asked.json
    assert asked.headers["x-api-key"] == "k"


def test_no_window_is_unknown_and_fits() -> None:
    center = Center()
    center.add_provider(Provider("x", kind="openai", base_url="http://127.0.0.1:9/v1", models=[ModelInfo("m")]))
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    fit = check_fit(center, dialog)
    assert fit is not None and fit.status == "unknown" and fit.fits and fit.window == 0 and fit.fraction == 0
