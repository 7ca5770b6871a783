"""The real window of each model, and where it came from: asked of each kind of server, else config, else known."""

from __future__ import annotations

from tests.engine.context.servers import (
    LLAMA_MODEL,
    lmstudio_models,
    ollama_show,
    openrouter_models,
    serve_llama,
    vllm_models,
)
from tests.llm_server import LLMServer, json_reply
from visindigo.engine import ModelInfo, Provider
from visindigo.engine.providers import list_models
from visindigo.engine.providers.windows import ensure_windows, ollama_num_ctx, window


def provider_at(llm: LLMServer, *, models: list[ModelInfo] | None = None, **settings: object) -> Provider:
    return Provider("p", kind="openai", base_url=llm.openai_url, models=models or [], settings=settings)


async def test_llama_cpp_props_give_the_window_of_one_slot(llm_server: LLMServer) -> None:
    # -c 8192 over 4 parallel slots: each request has 2048, which is what /props says and what counts; the one
    # /props read that tells the capabilities tells the window too
    serve_llama(llm_server, 8192, per_slot=2048)
    [model] = await list_models(provider_at(llm_server, server="llama.cpp"))
    assert model.id == LLAMA_MODEL
    assert window(model) == (2048, "server: llama.cpp /props (n_ctx of one slot)")
    assert [r.path.split("?")[0] for r in llm_server.requests] == ["/v1/models", "/props"]


async def test_a_server_not_known_as_llama_cpp_is_not_asked_for_props(llm_server: LLMServer) -> None:
    """Added by hand without a `server` setting: the listing's own `meta.n_ctx` is the window, and no request of
    its own is made for it (as for its capabilities: which server it is comes from the setting or the address)."""
    serve_llama(llm_server, 8192, per_slot=2048)
    provider = provider_at(llm_server)
    provider.models = await list_models(provider)
    await ensure_windows(provider)
    assert window(provider.models[0]) == (8192, "server: /v1/models meta.n_ctx")
    assert [r.path for r in llm_server.requests] == ["/v1/models"]


async def test_llama_cpp_without_props_falls_back_to_the_model_list(llm_server: LLMServer) -> None:
    serve_llama(llm_server, 2048)
    llm_server.routes.clear()  # /props answers 500 (an old server, or one started with --no-endpoint-props)
    [model] = await list_models(provider_at(llm_server))
    assert window(model) == (2048, "server: /v1/models meta.n_ctx")


async def test_the_server_window_outranks_a_configured_one(llm_server: LLMServer) -> None:
    serve_llama(llm_server, 512)
    configured = ModelInfo(LLAMA_MODEL, context_window=32768)
    provider = provider_at(llm_server, models=[configured], server="llama.cpp")
    assert window(configured) == (32768, "config")
    await ensure_windows(provider)
    assert window(configured) == (512, "server: llama.cpp /props (n_ctx of one slot)")
    await ensure_windows(provider)
    assert [r.path for r in llm_server.requests].count("/props") == 1  # once per session


async def test_ollama_reports_a_num_ctx_set_in_the_model(llm_server: LLMServer) -> None:
    llm_server.models = ["qwen3:8b"]
    llm_server.route("POST", "/api/show", json_reply(ollama_show(40960, num_ctx=16384)))
    [model] = await list_models(provider_at(llm_server, server="ollama"))
    assert window(model) == (16384, "server: Ollama /api/show (num_ctx set in the model)")
    assert model.extra["trained_context"] == 40960


async def test_ollama_without_num_ctx_says_its_default_cuts_the_prompt(llm_server: LLMServer) -> None:
    llm_server.models = ["qwen3:8b"]
    llm_server.route("POST", "/api/show", json_reply(ollama_show(40960)))
    # over the OpenAI-compatible endpoint (which ignores num_ctx) Ollama's default is what cuts the prompt
    [model] = await list_models(provider_at(llm_server, server="ollama", ollama_native=False))
    tokens, source = window(model)
    assert tokens == 4096
    assert "trained for 40960" in source and "Ollama's default applies" in source
    # over its own /api/chat, the num_ctx sent is the window
    [native] = await list_models(provider_at(llm_server, server="ollama"))
    assert window(native) == (32768, "sent: num_ctx 32768 to Ollama /api/chat")
    # what Visindigo sends as num_ctx: the trained length capped by the setting, or the model's own num_ctx
    assert ollama_num_ctx(model, {}) == 32768
    assert ollama_num_ctx(model, {"ollama_num_ctx_cap": 8192}) == 8192
    model.extra["num_ctx"] = 12000
    assert ollama_num_ctx(model, {"ollama_num_ctx_cap": 8192}) == 12000


async def test_lm_studio_gives_the_loaded_length_else_the_largest(llm_server: LLMServer) -> None:
    llm_server.models = ["qwen2.5-7b-instruct", "llama-3.2-1b"]
    llm_server.route("GET", "/api/v0/models", lmstudio_models())
    loaded, idle = await list_models(provider_at(llm_server, server="lmstudio"))
    assert window(loaded) == (8192, "server: LM Studio /api/v0/models (loaded_context_length)")
    assert window(idle) == (131072, "server: LM Studio /api/v0/models (max_context_length; not loaded)")


async def test_openrouter_and_vllm_lists_state_the_window(llm_server: LLMServer) -> None:
    llm_server.models_reply = openrouter_models()
    [routed] = await list_models(provider_at(llm_server))
    assert window(routed) == (40960, "server: /models context_length")
    llm_server.models_reply = vllm_models()
    [served] = await list_models(provider_at(llm_server))
    assert window(served) == (16384, "server: /v1/models max_model_len")


async def test_a_hosted_model_gets_the_window_the_catalogue_knows() -> None:
    provider = Provider(
        "a",
        kind="anthropic",
        base_url="https://api.anthropic.com/v1",
        models=[ModelInfo("claude-sonnet-4-20250514"), ModelInfo("claude-made-up-9")],
    )
    await ensure_windows(provider)  # no request: the catalogue ships with the package
    known, invented = provider.models
    tokens, source = window(known)
    assert tokens == 200000 and source.startswith("known: Claude Sonnet 4") and "genai-prices" in source
    assert window(invented) == (0, "unknown")


async def test_a_local_server_that_says_nothing_is_unknown_not_guessed(llm_server: LLMServer) -> None:
    llm_server.models = ["gpt-4o"]  # a local file named like a hosted model is not that model
    provider = provider_at(llm_server)
    provider.models = await list_models(provider)
    await ensure_windows(provider)
    assert window(provider.models[0]) == (0, "unknown")
    assert [r.path for r in llm_server.requests] == ["/v1/models"]
