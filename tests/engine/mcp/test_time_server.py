"""mcp-server-time from PyPI over stdio: its tools become functions and its results reach the model as text."""

from __future__ import annotations

import json
import re

from visindigo.engine.mcp import MCPManager, MCPToolFunction, ServerState
from visindigo.engine.tool_runner import run_function

from .helpers import time_server


async def test_tools_are_listed_as_prefixed_functions_with_their_schemas(manager: MCPManager) -> None:
    functions = await manager.functions_for([time_server()])
    by_id = {f.id: f for f in functions}
    assert set(by_id) == {"time__get_current_time", "time__convert_time"}
    current = by_id["time__get_current_time"]
    assert isinstance(current, MCPToolFunction)
    assert current.tool_name == "get_current_time" and current.server_name == "time"
    assert current.parameter_schema["required"] == ["timezone"]
    assert "timezone" in current.description.lower()
    assert current.requires_approval  # "ask" is the default for MCP tools
    status = manager.status("time")
    assert status.state is ServerState.RUNNING and status.tool_count == 2 and status.prompt_count == 0


async def test_get_current_time_returns_the_structured_result(manager: MCPManager) -> None:
    [current] = [f for f in await manager.functions_for([time_server()]) if f.id == "time__get_current_time"]
    outcome = await run_function(current, current.id, '{"timezone": "Asia/Tokyo"}')
    assert not outcome.is_error
    data = json.loads(outcome.text)
    assert data["timezone"] == "Asia/Tokyo"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00", data["datetime"])


async def test_convert_time_between_zones(manager: MCPManager) -> None:
    [convert] = [f for f in await manager.functions_for([time_server()]) if f.id == "time__convert_time"]
    arguments = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Kolkata"}
    outcome = await run_function(convert, convert.id, json.dumps(arguments))
    assert not outcome.is_error
    data = json.loads(outcome.text)
    assert data["target"]["datetime"].endswith("T17:30:00+05:30")
    assert data["time_difference"] == "+5.5h"


async def test_a_bad_timezone_is_an_error_result_the_model_can_read(manager: MCPManager) -> None:
    [current] = [f for f in await manager.functions_for([time_server()]) if f.id == "time__get_current_time"]
    outcome = await run_function(current, current.id, '{"timezone": "Mars/Olympus_Mons"}')
    assert outcome.is_error
    data = json.loads(outcome.text)
    assert data["isError"] is True
    assert "Invalid timezone" in data["error"] and "Mars/Olympus_Mons" in data["error"]
    # The server is still fine afterwards.
    assert manager.status("time").state is ServerState.RUNNING


async def test_the_server_is_reused_across_runs(manager: MCPManager) -> None:
    first = await manager.functions_for([time_server()])
    second = await manager.functions_for([time_server()])
    assert [f.id for f in first] == [f.id for f in second]
    assert first[0]._connection is second[0]._connection  # one process, not one per run
