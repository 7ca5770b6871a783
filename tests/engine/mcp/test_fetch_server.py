"""mcp-server-fetch from PyPI: its `fetch` prompt and tool, pointed only at an http.server on 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import sys
import threading
from collections.abc import Iterator

import pytest

from visindigo.engine import MCPServer, Role
from visindigo.engine.mcp import MCPManager, MCPServerError
from visindigo.engine.tool_runner import run_function

PAGE = b"""<!doctype html><html><head><title>Loopback page</title></head>
<body><article><h1>Loopback page</h1><p>The secret word is <b>periwinkle</b>.</p>
<p>This page is served by the test on 127.0.0.1 and nowhere else.</p></article></body></html>"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path != "/page.html":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def page_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/page.html"
    finally:
        server.shutdown()
        server.server_close()


def fetch_server() -> MCPServer:
    return MCPServer(
        "fetch",
        command=sys.executable,
        args=("-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"),
        timeout=30.0,
    )


async def test_fetch_prompt_is_offered_with_its_required_argument(manager: MCPManager) -> None:
    prompts = await manager.list_prompts([fetch_server()])
    [prompt] = prompts
    assert (prompt.server, prompt.name, prompt.label) == ("fetch", "fetch", "fetch/fetch")
    assert [(a.name, a.required) for a in prompt.arguments] == [("url", True)]
    assert prompt.missing_arguments({}) == ["url"]
    assert prompt.missing_arguments({"url": "http://x"}) == []


async def test_fetch_prompt_returns_the_page_as_prompt_messages(manager: MCPManager, page_url: str) -> None:
    messages = await manager.get_prompt(fetch_server(), "fetch", {"url": page_url})
    assert messages and all(m.name == "fetch/fetch" for m in messages)
    assert all(m.role is Role.PROMPT for m in messages)
    assert "periwinkle" in "\n".join(m.content for m in messages)


async def test_fetch_prompt_without_its_argument_is_a_clear_error(manager: MCPManager) -> None:
    with pytest.raises(MCPServerError, match=r"MCP server 'fetch' refused prompt 'fetch': .*URL is required"):
        await manager.get_prompt(fetch_server(), "fetch", {})


async def test_fetch_tool_reads_the_local_page(manager: MCPManager, page_url: str) -> None:
    [fetch] = await manager.functions_for([fetch_server()])
    assert fetch.id == "fetch__fetch"
    outcome = await run_function(fetch, fetch.id, json.dumps({"url": page_url}))
    assert not outcome.is_error, outcome.text
    assert "periwinkle" in json.loads(outcome.text)["content"]
