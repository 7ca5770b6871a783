"""OAuth for HTTP servers through the SDK's client auth, against `servers/oauth_server.py` on 127.0.0.1.

The test host plays the user's browser: it opens the authorization URL it is shown, the loopback
authorization server approves and redirects to the client's loopback catcher. Tokens must land in the
credentials file (0600), be reused by a restarted manager, and be refreshed when expired — without asking again.
"""

from __future__ import annotations

import asyncio
import json
import stat
import tomllib
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager, MCPServerError, ServerState
from visindigo.engine.mcp.host import ElicitationAnswer, SamplingDecision
from visindigo.engine.tool_runner import run_function

from .helpers import ServerProcesses

OAUTH_SERVER = Path(__file__).parent / "servers" / "oauth_server.py"


class Browser:
    """The host's sign-in: remembers the page it was shown and opens it, as a user would."""

    def __init__(self, *, open_page: bool = True, think: float = 0.0) -> None:
        self.shown: list[tuple[str, str]] = []
        self.open_page = open_page
        self.think = think

    async def sign_in(self, server: str, url: str, finished: asyncio.Event) -> None:
        self.shown.append((server, url))
        await asyncio.sleep(self.think)
        if self.open_page:
            async with httpx.AsyncClient(follow_redirects=True, timeout=10) as browser:
                page = await browser.get(url)
                assert "You can close this tab" in page.text
            await finished.wait()

    async def elicit(self, request: object) -> ElicitationAnswer:
        return ElicitationAnswer("decline")

    async def approve_sampling(self, request: object) -> SamplingDecision:
        return SamplingDecision.DENY


@pytest.fixture
def oauth_server(server_processes: ServerProcesses) -> Callable[[int], str]:
    """Start `servers/oauth_server.py` with access tokens living `access_ttl` seconds; returns its MCP URL."""

    def start(access_ttl: int = 3600) -> str:
        port = server_processes.start(OAUTH_SERVER, "{port}", str(access_ttl))
        return f"http://127.0.0.1:{port}/mcp"

    return start


async def call(manager: MCPManager, server: MCPServer, tool: str) -> str:
    functions = {f.id: f for f in await manager.functions_for([server])}
    return json.loads((await run_function(functions[f"{server.name}__{tool}"], tool, "{}")).text)["content"]


async def test_sign_in_stores_tokens_privately_and_a_restart_reuses_them(
    oauth_server: Callable[[int], str], tmp_path: Path
) -> None:
    url = oauth_server(3600)
    credentials = tmp_path / "credentials.toml"
    server = MCPServer("vault", url=url, oauth=True, timeout=20)
    browser = Browser()
    manager = MCPManager(tmp_path / "logs", host=browser, credentials_file=credentials, startup_timeout=30)
    try:
        assert await call(manager, server, "secret") == "the vault is open"
    finally:
        await manager.aclose()
    [(name, page)] = browser.shown
    assert name == "vault" and "code_challenge=" in page and "code_challenge_method=S256" in page
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    stored = tomllib.loads(credentials.read_text())["mcp_oauth"]["vault"]
    assert stored["url"] == url and stored["tokens"]["access_token"] and stored["client"]["client_id"]
    assert stored["expires_at"] > 0 and stored["redirect_port"] > 0

    again = Browser()
    restarted = MCPManager(tmp_path / "logs", host=again, credentials_file=credentials, startup_timeout=30)
    try:
        assert await call(restarted, server, "secret") == "the vault is open"
        assert await call(restarted, server, "grants") == "authorization_code=1, refresh_token=0, registrations=1"
    finally:
        await restarted.aclose()
    assert again.shown == []  # no second sign-in


async def test_an_expired_token_is_refreshed_without_asking(oauth_server: Callable[[int], str], tmp_path: Path) -> None:
    url = oauth_server(2)  # access tokens live 2 s
    credentials = tmp_path / "credentials.toml"
    server = MCPServer("vault", url=url, oauth=True, timeout=20)
    manager = MCPManager(None, host=Browser(), credentials_file=credentials, startup_timeout=30)
    try:
        await call(manager, server, "secret")
    finally:
        await manager.aclose()
    await asyncio.sleep(2.5)
    again = Browser()
    restarted = MCPManager(None, host=again, credentials_file=credentials, startup_timeout=30)
    try:
        assert await call(restarted, server, "secret") == "the vault is open"
        grants = await call(restarted, server, "grants")
    finally:
        await restarted.aclose()
    assert again.shown == [] and "refresh_token=1" in grants and "authorization_code=1" in grants


async def test_a_401_names_the_server_and_offers_to_sign_in(oauth_server: Callable[[int], str], tmp_path: Path) -> None:
    url = oauth_server(3600)
    server = MCPServer("vault", url=url, transport="http", timeout=20)
    browser = Browser()
    manager = MCPManager(None, host=browser, credentials_file=tmp_path / "credentials.toml", startup_timeout=30)
    try:
        with pytest.raises(MCPServerError) as raised:
            await manager.functions_for([server])
        message = str(raised.value)
        assert "MCP server 'vault' could not start" in message and "401" in message
        assert "if it signs in with OAuth, o on the MCP servers screen signs in" in message
        status = await manager.sign_in(server)  # what the MCP screen's "o" does
        assert status.state is ServerState.RUNNING and len(browser.shown) == 1
        assert await call(manager, server, "secret") == "the vault is open"
        await manager.sign_out(server)
        assert "vault" not in tomllib.loads((tmp_path / "credentials.toml").read_text()).get("mcp_oauth", {})
    finally:
        await manager.aclose()


async def test_without_a_host_that_can_show_the_page_the_start_fails_clearly(
    oauth_server: Callable[[int], str], tmp_path: Path
) -> None:
    url = oauth_server(3600)
    server = MCPServer("vault", url=url, oauth=True, timeout=20)
    manager = MCPManager(None, credentials_file=tmp_path / "credentials.toml", startup_timeout=30)
    try:
        with pytest.raises(MCPServerError, match="'vault' needs you to sign in"):
            await manager.functions_for([server])
    finally:
        await manager.aclose()


async def test_a_slow_sign_in_is_not_cut_off_by_the_start_up_timeout(
    oauth_server: Callable[[int], str], tmp_path: Path
) -> None:
    url = oauth_server(3600)
    server = MCPServer("vault", url=url, oauth=True, timeout=20)
    browser = Browser(think=4.0)  # the user takes longer than the server may take to start
    manager = MCPManager(None, host=browser, credentials_file=tmp_path / "credentials.toml", startup_timeout=3)
    try:
        assert await call(manager, server, "secret") == "the vault is open"
    finally:
        await manager.aclose()
