"""mcp-server-git from PyPI on a temporary repository."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from visindigo.engine import MCPServer
from visindigo.engine.mcp import MCPManager
from visindigo.engine.tool_runner import run_function


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", *args],
        cwd=repo, check=True, capture_output=True,
    )  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "notes.txt").write_text("first\n", encoding="utf-8")
    git(path, "add", "notes.txt")
    git(path, "commit", "-q", "-m", "Add the notes file")
    (path / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")
    (path / "untracked.txt").write_text("new\n", encoding="utf-8")
    return path


async def test_git_status_and_log_on_a_temporary_repository(manager: MCPManager, repo: Path) -> None:
    server = MCPServer("git", command=sys.executable, args=("-m", "mcp_server_git", "--repository", str(repo)))
    functions = {f.id: f for f in await manager.functions_for([server])}
    assert {"git__git_status", "git__git_log", "git__git_diff_unstaged"} <= set(functions)

    status = await run_function(functions["git__git_status"], "git__git_status", json.dumps({"repo_path": str(repo)}))
    assert not status.is_error, status.text
    status_text = json.loads(status.text)["content"]
    assert "notes.txt" in status_text and "untracked.txt" in status_text

    log = await run_function(functions["git__git_log"], "git__git_log", json.dumps({"repo_path": str(repo)}))
    assert not log.is_error, log.text
    assert "Add the notes file" in log.text

    diff = await run_function(
        functions["git__git_diff_unstaged"], "git__git_diff_unstaged", json.dumps({"repo_path": str(repo)})
    )
    assert "+second" in json.loads(diff.text)["content"]
