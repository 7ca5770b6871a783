"""Shell completion from argcomplete: the scripts for bash, zsh and fish, and the answers they get."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from visindigo.completion import SHELLS, script


def complete(tmp_path: Path, line: str) -> list[str]:
    """What pressing tab after `line` offers: the program run the way the completion scripts run it."""
    out = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(out),
        "VISINDIGO_HOME": str(tmp_path),
    }
    subprocess.run([sys.executable, "-m", "visindigo"], env=env, check=True, timeout=60,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return sorted(out.read_text().split("\n")) if out.read_text() else []


def words(completions: list[str]) -> list[str]:
    return [c for c in completions if not c.startswith("-")]


@pytest.mark.parametrize("shell", SHELLS)
def test_each_shell_gets_a_script_that_calls_visindigo(shell: str) -> None:
    text = script(shell)
    assert "_ARGCOMPLETE" in text and "visindigo" in text


def test_the_bash_script_is_valid_bash() -> None:
    assert shutil.which("bash")
    result = subprocess.run(["bash", "-n"], input=script("bash"), text=True, capture_output=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_script_is_valid_zsh() -> None:
    result = subprocess.run(["zsh", "-n"], input=script("zsh"), text=True, capture_output=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completion_end_to_end(tmp_path: Path) -> None:
    """fish loads the script and `complete -C` (what tab does) asks visindigo for the completions."""
    env = {**os.environ, "PATH": f"{launcher(tmp_path)}:{os.environ['PATH']}", "VISINDIGO_HOME": str(tmp_path)}
    program = script("fish") + '\ncomplete -C "visindigo config e"\n'
    result = subprocess.run(["fish", "--no-config", "-c", program], text=True, capture_output=True, env=env,
                            timeout=60)
    assert sorted(line.split("\t")[0] for line in result.stdout.splitlines()) == ["edit", "example"], result.stderr


def launcher(tmp_path: Path) -> Path:
    """A `visindigo` on PATH that runs this checkout's package with this Python."""
    program = tmp_path / "bin" / "visindigo"
    program.parent.mkdir(exist_ok=True)
    program.write_text(f"#!/bin/sh\nexec {sys.executable} -m visindigo \"$@\"\n")
    program.chmod(0o755)
    return program.parent


def test_the_main_commands_complete(tmp_path: Path) -> None:
    commands = complete(tmp_path, "visindigo ")
    for name in ("ask", "serve", "list", "export", "import", "config", "doctor", "tools", "completion"):
        assert name in commands
    assert words(complete(tmp_path, "visindigo config ")) == ["edit", "example", "path", "show"]
    assert words(complete(tmp_path, "visindigo completion ")) == ["bash", "fish", "zsh"]
    assert "--debug" in complete(tmp_path, "visindigo --d")
    assert {"--allow-tool", "--allow-tools"} <= set(complete(tmp_path, "visindigo ask --allow"))


def test_bash_completion_end_to_end(tmp_path: Path) -> None:
    """bash loads the script, and its completion function fills COMPREPLY by running visindigo."""
    folder = launcher(tmp_path)
    program = (
        script("bash")
        + '\nCOMP_LINE="visindigo conf"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(visindigo conf); COMP_CWORD=1\n'
        + "_python_argcomplete visindigo conf visindigo\n"
        + 'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{folder}:{os.environ['PATH']}", "VISINDIGO_HOME": str(tmp_path)}
    result = subprocess.run(["bash", "-c", program], text=True, capture_output=True, env=env, timeout=60)
    assert result.stdout.split() == ["config"], result.stderr
