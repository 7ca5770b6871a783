"""First-run discovery: keys named by their variable, local servers found on loopback ports."""

from __future__ import annotations

import socket
import time
from dataclasses import replace

from tests.llm_server import LLMServer, Reply, error_reply, json_reply
from visindigo.engine import Capability
from visindigo.engine.providers.discovery import DiscoveredProvider, discover_providers, probe_url, probed_addresses


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_keys_in_the_environment_are_reported_by_variable_name_only() -> None:
    secret = "sk-ant-very-secret-value-123456"
    env = {"ANTHROPIC_API_KEY": secret, "DEEPSEEK_API_KEY": "sk-ds-000000000", "OPENAI_API_KEY": "  ", "HOME": "/x"}
    found = await discover_providers(env=env, ports=())
    assert [(d.id, d.kind, d.base_url, d.api_key_env, d.source) for d in found] == [
        ("anthropic", "anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", "environment"),
        ("deepseek", "openai", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", "environment"),
    ]
    assert secret not in repr(found)
    assert found[1].settings["send_reasoning_with_tool_calls"] is True
    provider = found[0].to_provider()
    assert provider.api_key_env == "ANTHROPIC_API_KEY" and secret not in repr(provider)


async def test_local_servers_answering_v1_models_are_found(llm_server: LLMServer) -> None:
    llm_server.models = ["qwen3:8b", "llama3.2"]
    with LLMServer() as not_llm:
        not_llm.models_reply = error_reply(404, "Not Found", shape="text")
        with LLMServer() as html:
            html.models_reply = Reply(chunks=[b"<html></html>"], content_type="text/html")
            ports = (llm_server.port, not_llm.port, html.port, free_port())
            found = await discover_providers(env={}, ports=ports, timeout=0.5)
    assert len(found) == 1
    local = found[0]
    assert local.base_url == f"http://127.0.0.1:{llm_server.port}/v1" and local.source == "local"
    assert local.models == ("qwen3:8b", "llama3.2") and local.kind == "openai"
    provider = local.to_provider()
    assert provider.default_model == "qwen3:8b" and [m.id for m in provider.models] == ["qwen3:8b", "llama3.2"]


async def test_a_server_that_never_answers_is_skipped_quickly() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)  # accepts connections but never answers
    try:
        started = time.perf_counter()
        found = await discover_providers(env={}, ports=(listener.getsockname()[1],), timeout=0.2)
        assert found == [] and time.perf_counter() - started < 2
    finally:
        listener.close()


# --- more of what a machine says about itself ------------------------------------------------------------------


async def test_the_key_variables_of_common_compatible_services_are_known() -> None:
    env = {"GROQ_API_KEY": "gsk-1", "GEMINI_API_KEY": "g-1", "HF_TOKEN": "hf-1", "XAI_API_KEY": "x-1"}
    found = {d.id: d for d in await discover_providers(env=env, ports=())}
    assert found["groq"].base_url == "https://api.groq.com/openai/v1"
    assert found["gemini"].base_url == "https://generativelanguage.googleapis.com/v1beta/openai"
    assert found["huggingface"].base_url == "https://router.huggingface.co/v1"
    assert found["xai"].api_key_env == "XAI_API_KEY" and all(d.kind == "openai" for d in found.values())


async def test_openai_base_url_moves_the_openai_entry() -> None:
    env = {"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "https://gateway.example.invalid/v1/"}
    [found] = await discover_providers(env=env, ports=())
    assert found.id == "openai" and found.base_url == "https://gateway.example.invalid/v1"
    assert "gateway.example.invalid" in found.name


async def test_openai_base_url_without_a_key_is_asked_like_a_local_server(llm_server: LLMServer) -> None:
    env = {"OPENAI_BASE_URL": llm_server.openai_url}
    assert probed_addresses(env, ports=()) == [llm_server.openai_url]
    [found] = await discover_providers(env=env, ports=(), timeout=2.0)
    assert found.base_url == llm_server.openai_url and found.models == ("test-model",)


async def test_ollama_host_is_asked_and_its_models_learn_their_capabilities(llm_server: LLMServer) -> None:
    llm_server.models = ["qwen3:8b", "gemma3:270m"]
    shown = {"qwen3:8b": ["completion", "tools", "thinking"], "gemma3:270m": ["completion", "vision"]}
    llm_server.responder = lambda request: json_reply({"capabilities": shown[request.json["model"]]})
    env = {"OLLAMA_HOST": f"0.0.0.0:{llm_server.port}"}
    assert probed_addresses(env, ports=(11434,)) == [llm_server.openai_url, "http://127.0.0.1:11434/v1"]
    [found] = await discover_providers(env=env, ports=(), timeout=2.0)
    # an Ollama on its usual port is recognised by the port; this one is told by the setting
    provider = await replace(found, settings={"server": "ollama"}).learn_capabilities()
    qwen, gemma = provider.models
    assert qwen.capabilities == Capability.TEXT | Capability.TOOLS | Capability.REASONING
    assert gemma.capabilities == Capability.TEXT | Capability.IMAGE
    assert qwen.extra["capability_sources"]["tools"] == "server: Ollama /api/show"
    assert [r.path for r in llm_server.requests if r.method == "POST"] == ["/api/show", "/api/show"]


async def test_lm_studio_says_which_models_take_tools_and_images(llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply(
        {
            "data": [
                {"id": "qwen2.5-7b", "type": "llm", "capabilities": ["tool_use"], "owned_by": "organization_owner"},
                {"id": "llava", "type": "vlm", "owned_by": "organization_owner"},
                {"id": "nomic-embed", "type": "embeddings", "owned_by": "organization_owner"},
            ]
        }
    )
    [found] = await discover_providers(env={}, ports=(llm_server.port,), timeout=2.0)
    assert found.id == "lmstudio" and found.settings["server"] == "lmstudio"
    provider = await found.learn_capabilities()
    caps = {m.id: m.capabilities for m in provider.models}
    assert caps["qwen2.5-7b"] == Capability.TEXT | Capability.TOOLS
    assert caps["llava"] == Capability.TEXT | Capability.IMAGE
    assert provider.get_model("nomic-embed").extra["capability_sources"] == {  # type: ignore[union-attr]
        "text": "assumed",
        "tools": "assumed",
    }


async def test_llama_cpp_python_is_recognised_and_gets_one_run_at_a_time(llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply({"data": [{"id": "/models/gemma.gguf", "owned_by": "me"}]})
    [found] = await discover_providers(env={}, ports=(llm_server.port,), timeout=2.0)
    provider = found.to_provider()
    assert provider.id == "llamacpp" and "llama-cpp-python" in provider.name
    assert provider.max_concurrent_runs == 1
    assert provider.models[0].capabilities == Capability.TEXT | Capability.TOOLS  # not "text" alone


async def test_a_typed_address_is_tested_with_or_without_scheme_and_v1(llm_server: LLMServer) -> None:
    found = await probe_url(f"127.0.0.1:{llm_server.port}")
    assert isinstance(found, DiscoveredProvider) and found.base_url == llm_server.openai_url
    reason = await probe_url(f"127.0.0.1:{free_port()}", timeout=1.0)
    assert isinstance(reason, str) and "ConnectError" in reason
    assert await probe_url("  ") == "type an address, for example 127.0.0.1:8080"
