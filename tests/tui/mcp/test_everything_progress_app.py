"""Issue 25 §8 in the app, against the MCP reference server `@modelcontextprotocol/server-everything`: its
`trigger-long-running-operation` reports `n/30` steps with `notifications/progress`, and at 120×40 (a message pane
of about 58 columns beside the sidebar) the bar came after the call's signature on the tool block's one line and
was cut off. The bar and the count come first while the tool runs, at 120×40 and at 80×24."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from tests.engine.mcp.conftest import everything_js  # noqa: F401  (the session fixture, installed once)
from tests.engine.mcp.everything import everything_server
from tests.tui.chat.test_stream_tail import screen_text
from tests.tui.helpers import answer, main_screen, make_app, make_center, settle
from tests.tui.mcp.test_mcp_features_app import tool_result, tool_turn

#: 30 steps over 6 s: a notification every 0.2 s, so the screen is sampled mid-run many times.
ARGUMENTS = '{"duration": 6, "steps": 30}'
BAR = re.compile(r"▕[█░]+▏ (\d+)/30")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_reference_servers_progress_is_on_screen_while_its_tool_runs(
    everything_js: Path,  # noqa: F811
    size: tuple[int, int],
) -> None:
    center = make_center([tool_turn("ev__trigger-long-running-operation", ARGUMENTS), answer("done")])
    center.add_mcp(everything_server(everything_js, approval="allow", timeout=60.0))
    app = make_app(center=center)
    seen: list[int] = []
    async with app.run_test(size=size) as pilot:
        screen = main_screen(app)
        await screen.send("run the long operation")
        for _ in range(400):
            await pilot.pause(0.05)
            found = BAR.search(screen_text(app))
            if found:
                seen.append(int(found.group(1)))
                if len(seen) >= 3:
                    break
        assert len(seen) >= 3, screen_text(app)  # the bar and its count on screen, again and again
        assert seen == sorted(seen) and 0 < seen[-1] < 30
        await asyncio.wait_for(settle(pilot), 30)
        assert "Long running operation completed. Duration: 6 seconds, Steps: 30." in tool_result(app)["content"]
