"""The app and MCP (issue 5): without servers the SDK is never loaded; on quit no server process is left."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.engine.mcp.helpers import child_pids, pid_alive
from tests.tui.helpers import answer, main_screen, make_app, make_center, settle
from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager, ServerState

TIME = MCPServer("time", command=sys.executable, args=("-m", "mcp_server_time"), start_on_launch=True)

# Starts the app, sends one message, quits, then prints the SDK modules that got loaded.
PROBE = textwrap.dedent(
    """
    import asyncio, sys
    from visindigo.engine import Center, MCPServer
    from visindigo.engine.providers import FinishPart, TextPart, scripted_provider
    from visindigo.tui.app import AppOptions, VisindigoApp

    async def main(with_server):
        center = Center()
        center.add_provider(scripted_provider([[TextPart("hi"), FinishPart("stop")]]))
        if with_server:
            center.add_mcp(MCPServer("time", command=sys.executable, args=["-m", "mcp_server_time"]))
        app = VisindigoApp(center, AppOptions(stream_fps=30.0))
        async with app.run_test() as pilot:
            await app.main_screen.send("hello")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.main_screen.dialog.last_message.content == "hi"
            await app.action_quit()

    asyncio.run(main(sys.argv[1] == "with"))
    print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "httpx2"))))
    """
)


@pytest.mark.parametrize("servers", ["without", "with"])
def test_the_sdk_is_loaded_only_when_a_server_is_configured(servers: str) -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, servers], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    if servers == "without":
        assert loaded == ""
    else:  # the same probe sees the SDK once a server is in use, so the check above can fail
        assert "mcp" in loaded.split(",")


async def test_quitting_stops_the_servers_and_leaves_no_process() -> None:
    center = make_center([answer("unused")])
    center.add_mcp(TIME)
    before = child_pids()
    app = make_app(center=center)
    async with app.run_test() as pilot:
        manager = center.tool_source
        assert isinstance(manager, MCPManager)  # installed because a server is configured
        for _ in range(400):  # start_on_launch: it starts with the app, not at the first run
            if manager.status("time").state is ServerState.RUNNING:
                break
            await pilot.pause(0.05)
        assert manager.status("time").state is ServerState.RUNNING
        started = child_pids() - before
        assert len(started) == 1
        assert main_screen(app).dialog.message_count == 0
        await app.action_quit()
        await settle(pilot)
    assert not any(pid_alive(pid) for pid in started)
    assert child_pids() - before == set()
    assert manager.status("time").state is ServerState.STOPPED
