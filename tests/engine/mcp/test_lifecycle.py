"""Starting, reusing, restarting and stopping servers; no process outlives the manager."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from visindigo.engine import Center, MCPServer
from visindigo.engine.mcp import MCPManager, ServerState
from visindigo.engine.tool_runner import run_function

from .helpers import child_pids, pid_alive, time_server, toolbox


async def server_pid(manager: MCPManager, server: MCPServer) -> int:
    functions = {f.id: f for f in await manager.functions_for([server])}
    outcome = await run_function(functions[f"{server.name}__pid"], "pid", "{}")
    return int(json.loads(outcome.text)["content"])


async def test_aclose_stops_every_server_and_leaves_no_orphans() -> None:
    before = child_pids()
    manager = MCPManager()
    await manager.functions_for([toolbox("a"), toolbox("b"), time_server()])
    started = child_pids() - before
    assert len(started) == 3
    assert all(manager.status(n).state is ServerState.RUNNING for n in ("a", "b", "time"))
    t0 = time.monotonic()
    await manager.aclose()
    assert time.monotonic() - t0 < 8
    assert not any(pid_alive(pid) for pid in started)
    assert child_pids() - before == set()
    assert all(manager.status(n).state is ServerState.STOPPED for n in ("a", "b", "time"))


async def test_after_aclose_no_server_starts_again() -> None:
    manager = MCPManager()
    await manager.aclose()
    before = child_pids()
    try:
        await manager.functions_for([toolbox()])
    except Exception as error:
        assert "shutting down" in str(error)
    else:  # pragma: no cover - the assertion below explains
        raise AssertionError("a server started after aclose")
    assert child_pids() == before


async def test_restart_gives_a_fresh_process(manager: MCPManager) -> None:
    server = toolbox()
    first = await server_pid(manager, server)
    status = await manager.restart("toolbox")
    assert status.state is ServerState.RUNNING and status.tool_count > 0
    second = await server_pid(manager, server)
    assert second != first and not pid_alive(first)


async def test_restart_of_an_unknown_name_says_so(manager: MCPManager) -> None:
    status = await manager.restart("never")
    assert status.state is ServerState.STOPPED and "never started" in status.error


async def test_stop_then_next_use_starts_it_again(manager: MCPManager) -> None:
    server = toolbox()
    first = await server_pid(manager, server)
    await manager.stop("toolbox")
    assert manager.status("toolbox").state is ServerState.STOPPED and not pid_alive(first)
    assert await server_pid(manager, server) != first


async def test_disabled_servers_are_skipped(manager: MCPManager) -> None:
    before = child_pids()
    functions = await manager.functions_for([toolbox(enabled=False)])
    assert functions == [] and child_pids() == before
    assert await manager.functions_for([]) == []


async def test_approval_follows_the_server_setting(manager: MCPManager) -> None:
    asking = await manager.functions_for([toolbox("asking")])
    trusted = await manager.functions_for([toolbox("trusted", approval="allow")])
    assert all(f.requires_approval for f in asking)
    assert not any(f.requires_approval for f in trusted)


async def test_tool_names_outside_the_id_rule_are_mapped_back(manager: MCPManager) -> None:
    functions = {f.id: f for f in await manager.functions_for([toolbox("my tools")])}
    dotted = functions["my_tools__dotted_name_tool"]
    assert dotted.tool_name == "dotted.name/tool"  # type: ignore[attr-defined]
    assert (await run_function(dotted, dotted.id, "{}")).text == '{"content":"dotted ok"}'


async def test_same_tool_names_on_two_servers_stay_apart(manager: MCPManager) -> None:
    functions = await manager.functions_for([toolbox("x.y"), toolbox("x_y")])
    ids = [f.id for f in functions]
    assert len(ids) == len(set(ids))
    assert "x_y__echo" in ids and "x_y__echo_2" in ids


async def test_a_dialog_server_replaces_the_center_server_of_the_same_name(manager: MCPManager) -> None:
    center = Center()
    center.tool_source = manager
    center.add_mcp(toolbox("shared", env={"WHO": "center"}))
    plain = center.create_dialog()
    custom = center.create_dialog()
    custom.add_mcp(toolbox("shared", env={"WHO": "dialog"}))

    async def who(dialog_servers: list[MCPServer]) -> str:
        functions = {f.id: f for f in await manager.functions_for(dialog_servers)}
        outcome = await run_function(functions["shared__env"], "env", '{"names": ["WHO"]}')
        return str(json.loads(outcome.text)["content"])

    assert await who(custom.effective_mcp_servers()) == "WHO=dialog"
    assert await who(plain.effective_mcp_servers()) == "WHO=center"
    assert [s.env["WHO"] for s in custom.effective_mcp_servers()] == ["dialog"]


async def test_editing_a_config_retires_the_old_process(manager: MCPManager) -> None:
    old_pid = await server_pid(manager, toolbox("svc", env={"V": "1"}))
    new_pid = await server_pid(manager, toolbox("svc", env={"V": "2"}))
    assert new_pid != old_pid
    for _ in range(100):
        if not pid_alive(old_pid):
            break
        await asyncio.sleep(0.05)
    assert not pid_alive(old_pid)
    assert manager.status("svc").state is ServerState.RUNNING


async def test_start_on_launch_starts_only_those_servers(manager: MCPManager) -> None:
    bad = MCPServer("bad", command="nope-xyz", start_on_launch=True)
    statuses = await manager.start_on_launch([toolbox("early", start_on_launch=True), toolbox("lazy"), bad])
    assert {s.name: s.state for s in statuses} == {"early": ServerState.RUNNING, "bad": ServerState.FAILED}
    assert manager.status("lazy").state is ServerState.STOPPED
    assert {s.name for s in manager.statuses()} == {"early", "bad"}


async def test_the_log_file_gets_stderr_and_a_header_without_secrets(
    manager: MCPManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TB_SECRET", "hush-hush-value")
    await manager.functions_for([toolbox("logged", env={"K": "${TB_SECRET}"})])
    log_path = manager.status("logged").log_path
    assert log_path is not None and log_path.endswith("mcp-logged.log")
    text = Path(log_path).read_text(encoding="utf-8")
    assert "starting 'logged' (stdio)" in text and "toolbox: started" in text
    assert "hush-hush-value" not in text


async def test_a_run_sees_tools_added_since_the_last_listing(tmp_path: Path) -> None:
    manager = MCPManager(tmp_path, list_refresh=0.0)
    try:
        functions = {f.id: f for f in await manager.functions_for([toolbox()])}
        assert "toolbox__extra" not in functions
        await run_function(functions["toolbox__grow"], "grow", '{"name": "extra"}')
        functions = {f.id: f for f in await manager.functions_for([toolbox()])}
        assert (await run_function(functions["toolbox__extra"], "extra", "{}")).text == '{"content":"grown"}'
    finally:
        await manager.aclose()


async def test_without_a_refresh_due_the_listing_is_reused(manager: MCPManager) -> None:
    functions = {f.id: f for f in await manager.functions_for([toolbox()])}
    await run_function(functions["toolbox__grow"], "grow", '{"name": "later"}')
    assert "toolbox__later" not in {f.id for f in await manager.functions_for([toolbox()])}
    assert manager.status("toolbox").tool_count == len(functions)


async def test_a_server_that_died_while_idle_is_restarted_before_the_run(manager: MCPManager) -> None:
    import os
    import signal

    first = await server_pid(manager, toolbox())
    os.kill(first, signal.SIGKILL)
    for _ in range(100):
        if manager.status("toolbox").state is ServerState.FAILED:
            break
        await asyncio.sleep(0.05)
    assert manager.status("toolbox").state is ServerState.FAILED
    assert await server_pid(manager, toolbox()) != first


async def test_two_runs_starting_the_same_server_share_one_process(manager: MCPManager) -> None:
    before = child_pids()
    first, second = await asyncio.gather(manager.functions_for([toolbox()]), manager.functions_for([toolbox()]))
    assert len(child_pids() - before) == 1
    assert first[0]._connection is second[0]._connection  # type: ignore[attr-defined]


async def test_cancelling_a_run_while_its_server_starts_leaves_no_process(tmp_path: Path) -> None:
    manager = MCPManager(tmp_path, startup_timeout=30)
    before = child_pids()
    try:
        task = asyncio.create_task(manager.functions_for([toolbox("mute", env={"TOOLBOX_SILENT": "1"})]))
        for _ in range(100):
            if child_pids() - before:
                break
            await asyncio.sleep(0.05)
        assert child_pids() - before
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert child_pids() - before == set()
        assert manager.status("mute").state is ServerState.STOPPED
    finally:
        await manager.aclose()


async def test_invoke_from_a_worker_thread_uses_the_event_loop(manager: MCPManager) -> None:
    functions = {f.id: f for f in await manager.functions_for([toolbox()])}
    echo = functions["toolbox__echo"]
    assert await asyncio.to_thread(echo.invoke, {"text": "sync"}) == {"content": "sync"}
    with pytest.raises(RuntimeError, match="invoke_async"):
        echo.invoke({"text": "would deadlock"})


async def test_an_unwritable_log_folder_does_not_keep_a_server_from_starting(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log folder should be", encoding="utf-8")
    manager = MCPManager(blocker / "logs")
    try:
        functions = {f.id: f for f in await manager.functions_for([toolbox()])}
        assert (await run_function(functions["toolbox__echo"], "echo", '{"text": "ok"}')).text == '{"content":"ok"}'
    finally:
        await manager.aclose()
