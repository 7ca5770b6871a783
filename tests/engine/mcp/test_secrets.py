"""A stdio server sees only the safe allow-list plus its own env; secrets stay references in what is saved."""

from __future__ import annotations

import json

import pytest

from visindigo.engine import Center, Dialog
from visindigo.engine.mcp import MCPManager, MCPServerError
from visindigo.engine.tool_runner import run_function

from .helpers import toolbox


async def seen(manager: MCPManager, server_name: str, names: list[str], server: object) -> dict[str, str]:
    functions = {f.id: f for f in await manager.functions_for([server])}  # type: ignore[list-item]
    outcome = await run_function(functions[f"{server_name}__env"], "env", json.dumps({"names": names}))
    lines = json.loads(outcome.text)["content"].splitlines()
    return dict(line.split("=", 1) if "=" in line else (line.split()[0], "<unset>") for line in lines)


async def test_the_child_gets_the_allow_list_and_its_configured_env_only(
    manager: MCPManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parent-secret")
    monkeypatch.setenv("GH_PAT", "ghp-from-the-environment")
    monkeypatch.setenv("LANG", "C.UTF-8")
    server = toolbox("envy", env={"GITHUB_TOKEN": "${GH_PAT}", "REGION": "${REGION:-eu-west}"})
    env = await seen(manager, "envy", ["OPENAI_API_KEY", "GH_PAT", "GITHUB_TOKEN", "REGION", "LANG", "PATH"], server)
    assert env["OPENAI_API_KEY"] == "<unset>" and env["GH_PAT"] == "<unset>"
    assert env["GITHUB_TOKEN"] == "ghp-from-the-environment"
    assert env["REGION"] == "eu-west"
    assert env["LANG"] == "C.UTF-8" and env["PATH"]


async def test_args_are_expanded_too(manager: MCPManager, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from visindigo.engine import MCPServer

    from .helpers import TOOLBOX

    monkeypatch.setenv("TOOLBOX_DIR", str(TOOLBOX.parent))
    command = "${PYTHON_FOR_TEST:-" + sys.executable + "}"
    server = MCPServer("expanded", command=command, args=("${TOOLBOX_DIR}/toolbox.py",))
    assert "expanded__echo" in [f.id for f in await manager.functions_for([server])]


async def test_an_unset_variable_stops_the_start_with_its_name(manager: MCPManager) -> None:
    server = toolbox("needs", env={"TOKEN": "${VISINDIGO_TEST_UNSET_VARIABLE}"})
    with pytest.raises(MCPServerError, match=r"VISINDIGO_TEST_UNSET_VARIABLE is not set .*env TOKEN"):
        await manager.functions_for([server])


async def test_a_dialog_saves_the_reference_never_the_value(
    manager: MCPManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_PAT", "ghp-from-the-environment")
    center = Center()
    center.tool_source = manager
    dialog = center.create_dialog()
    dialog.add_mcp(toolbox("gh", env={"GITHUB_TOKEN": "${GH_PAT}"}, headers={}))
    await manager.functions_for(dialog.effective_mcp_servers())  # started with the real value…
    document = json.dumps(dialog.to_json())
    assert "${GH_PAT}" in document and "ghp-from-the-environment" not in document  # …saved as the reference
    restored = Dialog()
    restored.from_json(json.loads(document))
    assert dict(restored.mcp_servers[0].env) == {"GITHUB_TOKEN": "${GH_PAT}"}


def test_repr_names_env_and_headers_but_shows_no_value() -> None:
    """Pasted configs often hold literal tokens; a repr lands in tracebacks and logs."""
    from visindigo.engine import MCPServer

    stdio = MCPServer("gh", command="npx", args=("-y", "srv"), env={"GITHUB_TOKEN": "ghp_literal_value", "DEBUG": "1"})
    http = MCPServer("web", url="https://mcp.example.invalid/mcp", headers={"Authorization": "Bearer sk-literal"})
    assert repr(stdio) == "MCPServer('gh', kind='stdio', command='npx', args=['-y', 'srv'], env=[GITHUB_TOKEN, DEBUG])"
    assert repr(http) == "MCPServer('web', kind='http', url='https://mcp.example.invalid/mcp', headers=[Authorization])"
    assert "ghp_literal_value" not in repr([stdio]) and "sk-literal" not in str({"s": http})
