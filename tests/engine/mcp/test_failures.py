"""Servers that misbehave: each costs a clear tool result or error, never the dialog or the manager."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager, MCPServerError, ServerState
from visindigo.engine.tool_runner import run_function

from .helpers import pid_alive, time_server, toolbox


async def call(manager: MCPManager, server: MCPServer, tool: str, arguments: str = "{}") -> tuple[str, bool]:
    functions = {f.id: f for f in await manager.functions_for([server])}
    function_id = f"{server.name}__{tool}"
    outcome = await run_function(functions[function_id], function_id, arguments)
    return outcome.text, outcome.is_error


async def test_a_crash_mid_call_is_an_error_result_and_the_next_use_restarts_it(
    manager: MCPManager, capfd: pytest.CaptureFixture[str]
) -> None:
    server = toolbox()
    first_pid = int(json.loads((await call(manager, server, "pid"))[0])["content"])

    text, is_error = await call(manager, server, "crash")
    assert is_error
    assert "MCP server 'toolbox' stopped during tool 'crash'" in json.loads(text)["error"]
    status = manager.status("toolbox")
    assert status.state is ServerState.FAILED
    assert "stopped unexpectedly" in status.error and "restarted on next use" in status.error

    text, is_error = await call(manager, server, "echo", '{"text": "still here"}')
    assert (text, is_error) == ('{"content":"still here"}', False)
    second_pid = int(json.loads((await call(manager, server, "pid"))[0])["content"])
    assert second_pid != first_pid and not pid_alive(first_pid)
    assert manager.status("toolbox").state is ServerState.RUNNING
    # The crash went to the server's log, not to our stderr (which, in the app, is the screen).
    log = Path(manager.status("toolbox").log_path or "").read_text(encoding="utf-8")
    assert "toolbox: started" in log and "toolbox: crashing on purpose" in log
    assert "toolbox:" not in capfd.readouterr().err


async def test_a_call_that_never_answers_times_out_and_the_server_stays_usable(manager: MCPManager) -> None:
    server = toolbox(timeout=1.0)
    await manager.functions_for([server])  # started first: the timing below is the call's, not the start's
    started = time.monotonic()
    text, is_error = await call(manager, server, "hang")
    elapsed = time.monotonic() - started
    assert is_error and 0.9 <= elapsed < 5
    assert "did not answer tool 'hang' within 1 s" in json.loads(text)["error"]
    assert await call(manager, server, "echo", '{"text": "after"}') == ('{"content":"after"}', False)


async def test_a_missing_command_is_a_clear_error_and_the_manager_goes_on(manager: MCPManager) -> None:
    missing = MCPServer("ghost", command="visindigo-no-such-mcp-server", args=("--flag",))
    with pytest.raises(MCPServerError) as caught:
        await manager.functions_for([missing])
    assert str(caught.value).startswith(
        "MCP server 'ghost' could not start: the command 'visindigo-no-such-mcp-server' was not found on PATH"
    )
    assert manager.status("ghost").state is ServerState.FAILED
    # Other servers are unaffected, and the failing one is named when both are asked for.
    assert await call(manager, toolbox(), "echo", '{"text": "ok"}') == ('{"content":"ok"}', False)
    with pytest.raises(MCPServerError, match="'ghost'"):
        await manager.functions_for([toolbox(), missing])
    assert manager.status("toolbox").state is ServerState.RUNNING


async def test_a_server_that_exits_during_startup_points_at_its_log(manager: MCPManager) -> None:
    server = toolbox("quitter", env={"TOOLBOX_EXIT_AT_START": "1"})
    expected = "'quitter' could not start: it exited during startup; its log is"
    with pytest.raises(MCPServerError, match=expected) as caught:
        await manager.functions_for([server])
    log_path = manager.status("quitter").log_path
    assert log_path is not None and log_path in str(caught.value)
    assert "toolbox: exiting at start as asked" in Path(log_path).read_text(encoding="utf-8")


async def test_a_server_silent_in_its_handshake_hits_the_startup_timeout(tmp_path: Path) -> None:
    manager = MCPManager(tmp_path, startup_timeout=1.5)
    try:
        started = time.monotonic()
        with pytest.raises(MCPServerError, match=r"'mute' could not start: it did not answer within 1.5 s"):
            await manager.functions_for([toolbox("mute", env={"TOOLBOX_SILENT": "1"})])
        assert time.monotonic() - started < 10
        assert manager.status("mute").state is ServerState.FAILED
    finally:
        await manager.aclose()


async def test_a_tool_call_to_a_server_that_cannot_start_is_an_error_result(manager: MCPManager) -> None:
    functions = {f.id: f for f in await manager.functions_for([toolbox()])}
    await manager.stop("toolbox")
    # Make the restart impossible: the function still points at its (now stopped) connection.
    connection = functions["toolbox__echo"]._connection  # type: ignore[attr-defined]
    connection.startup_timeout = 0.001
    outcome = await run_function(functions["toolbox__echo"], "toolbox__echo", '{"text": "x"}')
    assert outcome.is_error and "could not start" in json.loads(outcome.text)["error"]


async def test_a_tool_error_reaches_the_model_as_text(manager: MCPManager) -> None:
    text, is_error = await call(manager, toolbox(), "fail", '{"reason": "disk full"}')
    assert is_error and json.loads(text)["error"].startswith("Error executing tool fail")


async def test_a_json_rpc_error_becomes_a_readable_error_result(manager: MCPManager) -> None:
    """mcp-server-time answers an unknown tool with JSON-RPC error -32602 (not an isError result)."""
    [current, *_] = await manager.functions_for([time_server()])
    result = await current._connection.call_tool("no_such_tool", {})  # type: ignore[attr-defined]
    assert result == {
        "isError": True,
        "error": "MCP server 'time' refused tool 'no_such_tool': Unknown tool: no_such_tool (JSON-RPC error -32602)",
    }
    assert manager.status("time").state is ServerState.RUNNING


async def test_a_missing_sdk_is_said_at_once_naming_the_package(
    manager: MCPManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partial install without the `mcp` package: no 60 s wait and no "did not answer", but the package's name."""
    monkeypatch.setitem(sys.modules, "mcp", None)  # what find_spec reports for a package that is not there
    started = time.monotonic()
    with pytest.raises(MCPServerError) as raised:
        await manager.functions_for([toolbox()])
    assert time.monotonic() - started < 2
    assert "'mcp'" in str(raised.value) and "pip install mcp" in str(raised.value)
    assert "did not answer" not in str(raised.value)


def test_the_mcp_sdk_is_a_dependency_of_the_plain_install() -> None:
    import tomllib

    project = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(requirement.startswith("mcp") for requirement in project["project"]["dependencies"])
