"""A tool's progress in the plain mode, from a real MCP server (`tests/engine/mcp/servers/features.py`, made with
the SDK, over stdio): a line when there is news — a tenth more done, or other words — never one per tick."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.llm_server import LLMServer, openai_stream, openai_tool_call
from tests.plain.conftest import Start, write_home
from tests.plain.terminal import control_characters

FEATURES = Path(__file__).resolve().parents[1] / "engine" / "mcp" / "servers" / "features.py"


def test_a_tool_reporting_every_step_makes_a_line_per_tenth(
    start_plain: Start, llm_server: LLMServer, tmp_path: Path
) -> None:
    server = f'\n[mcp_servers.f]\ncommand = "{sys.executable}"\nargs = ["{FEATURES}"]\napproval = "allow"\n'
    home = write_home(tmp_path / "mcp-home", llm_server, tools=server)
    call = openai_tool_call("c1", "f__slow", ['{"steps": 40, ', '"delay": 0.01}'])
    llm_server.queue(openai_stream(tool_calls=call, finish="tool_calls"), openai_stream(["Forty steps done."]))
    terminal = start_plain(home=home)
    terminal.prompt()
    terminal.send("run the slow tool")
    seen = terminal.expect("Answer complete")
    terminal.prompt()
    assert terminal.finish() == 0
    assert "Tool call: f__slow steps=40 delay=0.01\n" in seen
    progress = [line for line in seen.splitlines() if line.startswith("Tool progress:")]
    # 40 reports: the first, then one per tenth of the total (4/40, 8/40, …, 40/40) — never one per report
    assert progress == [f"Tool progress: {n}/40 step {n} of 40" for n in (1, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40)]
    assert 'Tool result: {"content": "done after 40 steps"}\n' in seen and "Answer: Forty steps done.\n" in seen
    assert control_characters(terminal.output) == []
