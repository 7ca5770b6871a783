"""Issue 11 §1: what an MCP server says about itself (its version, its tools' titles) reaches the screen clean.

A real stdio server built with the SDK (tests/tui/hostile_mcp_server.py) is started from the MCP servers
screen; the detail pane then lists its tools. What it shows must hold none of the control characters of the
hostile sequences (nor their bodies), and the visible parts of the text must still be there.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.tui.screens_host import ScreenHost
from visindigo.engine import Center, MCPServer
from visindigo.engine.mcp import MCPManager
from visindigo.engine.paths import ensure_dirs, resolve_paths
from visindigo.tui.mcp.servers import MCPServersScreen

SERVER = Path(__file__).with_name("hostile_mcp_server.py")
CONTROLS = {chr(c) for c in range(0x20) if chr(c) not in "\n"} | {chr(c) for c in range(0x7F, 0xA0)} | {
    "\u202e", "\u2066", "\u2069"
}  # fmt: skip


async def test_an_mcp_servers_version_and_tool_titles_reach_the_screen_clean() -> None:
    paths = resolve_paths()
    ensure_dirs(paths)
    manager = MCPManager()
    center = Center()
    center.add_mcp(MCPServer("hostile", command=sys.executable, args=(str(SERVER),)))
    app = ScreenHost(lambda: MCPServersScreen(center, paths, manager, poll_interval=0.1))
    try:
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, MCPServersScreen)
            await pilot.press("r")
            detail = screen.query_one("#detail")
            for _ in range(400):
                await pilot.pause(0.05)
                if "Peek" in str(detail.render()):
                    break
            shown = str(detail.render())
            assert "Peek" in shown and "9 OSC 52" in shown, shown
            assert "OSC 52 clipboard" in shown and "RLO" in shown  # the visible text stays
            assert not CONTROLS & set(shown), sorted(CONTROLS & set(shown))
            for marker in ("Q0xJUEJPQVJE", "WINDOWTITLE", "HYPERLINK", "CONE"):
                assert marker not in shown  # a sequence's body would be text drawn on the screen
    finally:
        await manager.aclose()
