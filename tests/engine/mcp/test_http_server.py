"""Streamable HTTP and legacy SSE: the SDK-made toolbox server on 127.0.0.1, headers with `${VAR}` expanded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager, ServerState
from visindigo.engine.tool_runner import run_function


@pytest.mark.parametrize("mode", ["http", "sse"])
async def test_tools_and_prompts_over_http(
    mode: str, manager: MCPManager, http_toolbox: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = http_toolbox(mode)
    monkeypatch.setenv("TOOLBOX_TOKEN", "tb-secret-value")
    server = MCPServer(
        "web",
        url=url,
        headers={"Authorization": "Bearer ${TOOLBOX_TOKEN}", "X-Mode": "${TOOLBOX_MODE:-plain}"},
        transport="sse" if mode == "sse" else None,
    )
    functions = {f.id: f for f in await manager.functions_for([server])}
    assert manager.status("web").state is ServerState.RUNNING
    assert manager.status("web").transport == mode

    added = await run_function(functions["web__add"], "web__add", '{"a": 20, "b": 22}')
    assert added.text == '{"sum":42}'

    header = functions["web__request_header"]
    assert (await run_function(header, header.id, '{"name": "authorization"}')).text == (
        '{"content":"Bearer tb-secret-value"}'
    )
    assert (await run_function(header, header.id, '{"name": "x-mode"}')).text == '{"content":"plain"}'

    [prompt] = await manager.list_prompts([server])
    assert prompt.label == "web/review"
    messages = await manager.get_prompt(server, "review", {"code": "print(1)"})
    assert messages[0].content == "Review this python code:\nprint(1)"

    # What a dialog would store keeps the reference, not the token.
    assert server.to_json()["headers"]["Authorization"] == "Bearer ${TOOLBOX_TOKEN}"


async def test_an_unreachable_url_is_a_clear_error_without_the_secret(
    manager: MCPManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    from visindigo.engine.mcp import MCPServerError

    from .helpers import free_port

    monkeypatch.setenv("TOOLBOX_TOKEN", "tb-secret-value")
    server = MCPServer("down", url=f"http://127.0.0.1:{free_port()}/mcp?key=${{TOOLBOX_TOKEN}}")
    with pytest.raises(MCPServerError) as caught:
        await manager.functions_for([server])
    message = str(caught.value)
    assert "MCP server 'down' could not start" in message and "could not reach" in message
    assert "tb-secret-value" not in message
    assert manager.status("down").state is ServerState.FAILED
    assert "tb-secret-value" not in manager.status("down").error
