"""mcp-server-fetch from PyPI: its `fetch` prompt and tool, pointed only at an http.server on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest

from tests.local_page import serve_page
from tests.net_guard import fetch_server_env
from visindigo.engine import MCPServer, Role
from visindigo.engine.mcp import MCPManager, MCPServerError
from visindigo.engine.tool_runner import run_function

PAGE = b"""<!doctype html><html><head><title>Loopback page</title></head>
<body><article><h1>Loopback page</h1><p>The secret word is <b>periwinkle</b>.</p>
<p>This page is served by the test on 127.0.0.1 and nowhere else.</p></article></body></html>"""


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_page(PAGE, "/page.html") as url:
        yield url


def fetch_server() -> MCPServer:
    return MCPServer(
        "fetch",
        command=sys.executable,
        args=("-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"),
        timeout=30.0,
        env=fetch_server_env(),
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
