"""Extra provider headers may hold `${VAR}` references: expanded per request, never stored or shown expanded."""

import pytest

from tests.llm_server import LLMServer, anthropic_stream, error_reply, openai_stream
from visindigo.engine import Center, Dialog, ModelInfo, Provider, Role, RunFailed


def dialog_for(provider: Provider) -> tuple[Center, Dialog]:
    center = Center()
    center.add_provider(provider)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    return center, dialog


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_references_in_headers_are_expanded_when_sent(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("GATEWAY_TOKEN", "gw-secret-123456789")
    llm_server.queue(openai_stream(["ok"]) if kind == "openai" else anthropic_stream(["ok"]))
    url = llm_server.openai_url if kind == "openai" else llm_server.anthropic_url
    provider = Provider(
        "gw",
        kind=kind,
        base_url=url,
        api_key="sk-test",
        headers={"X-Gateway-Auth": "Bearer ${GATEWAY_TOKEN}", "X-Team": "${TEAM:-research}"},
        models=[ModelInfo("m")],
    )
    center, dialog = dialog_for(provider)
    events = [event async for event in dialog.run()]
    await center.aclose()
    assert not any(isinstance(event, RunFailed) for event in events)
    sent = llm_server.requests[-1].headers
    assert sent["x-gateway-auth"] == "Bearer gw-secret-123456789"
    assert sent["x-team"] == "research"
    assert provider.headers["X-Gateway-Auth"] == "Bearer ${GATEWAY_TOKEN}"  # the reference stays a reference


async def test_an_unset_variable_fails_the_run_with_its_name(llm_server: LLMServer) -> None:
    provider = Provider(
        "gw",
        base_url=llm_server.openai_url,
        headers={"X-Gateway-Auth": "${SURELY_UNSET_GATEWAY_VAR}"},
        models=[ModelInfo("m")],
    )
    center, dialog = dialog_for(provider)
    events = [event async for event in dialog.run()]
    await center.aclose()
    failures = [event.message for event in events if isinstance(event, RunFailed)]
    assert len(failures) == 1
    assert "SURELY_UNSET_GATEWAY_VAR" in failures[0] and "X-Gateway-Auth" in failures[0]
    assert llm_server.requests == []


async def test_an_expanded_value_echoed_by_the_server_is_redacted(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_TOKEN", "gw-secret-abcdefghijkl")
    llm_server.queue(error_reply(401, "bad gateway token gw-secret-abcdefghijkl"))
    provider = Provider(
        "gw", base_url=llm_server.openai_url, headers={"X-Custom": "${GATEWAY_TOKEN}"}, models=[ModelInfo("m")]
    )
    center, dialog = dialog_for(provider)
    events = [event async for event in dialog.run()]
    await center.aclose()
    failure = next(event.message for event in events if isinstance(event, RunFailed))
    assert "gw-secret" not in failure
    assert "bad gateway token [redacted]" in failure
