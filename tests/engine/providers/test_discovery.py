"""First-run discovery: keys named by their variable, local servers found on loopback ports."""

from __future__ import annotations

import socket
import time

from tests.llm_server import LLMServer, Reply, error_reply
from visindigo.engine.providers.discovery import discover_providers


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
