"""Streamable HTTP and legacy SSE: the SDK-made toolbox server on 127.0.0.1, headers with `${VAR}` expanded."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable

import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager, MCPServerError, ServerState
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


async def test_an_unlabelled_url_of_a_legacy_sse_server_falls_back_to_sse(
    manager: MCPManager, http_toolbox: Callable[[str], str]
) -> None:
    """As a pasted Cursor entry would be: no `type`, so Streamable HTTP is tried first, then legacy SSE."""
    server = MCPServer("old", url=http_toolbox("sse"))
    functions = {f.id: f for f in await manager.functions_for([server])}
    assert manager.status("old").state is ServerState.RUNNING and manager.status("old").transport == "sse"
    assert (await run_function(functions["old__add"], "old__add", '{"a": 1, "b": 2}')).text == '{"sum":3}'


class _Refuses(http.server.BaseHTTPRequestHandler):
    """Answers every request with 401, like a remote server given no or a wrong token."""

    def do_POST(self) -> None:
        self.send_response(401)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        pass


async def test_http_refusals_name_the_status_without_the_secret(
    manager: MCPManager, http_toolbox: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLBOX_TOKEN", "tb-secret-value")
    refuser = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuses)
    threading.Thread(target=refuser.serve_forever, daemon=True).start()
    try:
        locked = MCPServer(
            "locked", url=f"http://127.0.0.1:{refuser.server_address[1]}/mcp",
            headers={"Authorization": "Bearer ${TOOLBOX_TOKEN}"},
        )  # fmt: skip
        with pytest.raises(MCPServerError) as caught:
            await manager.functions_for([locked])
        assert "/mcp answered HTTP 401 Unauthorized (check the token" in str(caught.value)
        assert "tb-secret-value" not in str(caught.value)
    finally:
        refuser.shutdown()
        refuser.server_close()

    wrong = http_toolbox("http").replace("/mcp", "/wrong")
    with pytest.raises(MCPServerError, match="answered HTTP 404 Not Found as Streamable HTTP and did not answer as "
                                             "legacy SSE either"):
        await manager.functions_for([MCPServer("wrong", url=wrong)])
    with pytest.raises(MCPServerError, match=r"/wrong answered HTTP 404 Not Found \("):  # typed: no SSE attempt
        await manager.functions_for([MCPServer("typed", url=wrong, transport="http")])
