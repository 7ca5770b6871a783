"""`visindigo config path|show|edit|example`, -V, --help naming the files, install-fitting advice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from visindigo.cli import main
from visindigo.config_cli import mask_args
from visindigo.install_advice import extra_command, install_method

SECRET = "sk-live-0123456789abcdef"

CONFIG = f"""\
theme = "nord"
default_provider = "work"

[providers.work]
kind = "openai"
base_url = "https://llm.example.com/v1?api_key={SECRET}"
api_key_env = "WORK_KEY"
headers = {{ Authorization = "Bearer {SECRET}" }}

[providers.pasted]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
api_key = "{SECRET}"

[mcp_servers.gh]
command = "npx"
args = ["server-github", "--token", "{SECRET}", "--api-key={SECRET}"]
env = {{ GITHUB_TOKEN = "{SECRET}" }}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("VISINDIGO_HOME", str(tmp_path))
    monkeypatch.delenv("VISINDIGO_STREAM_FPS", raising=False)
    return tmp_path


def write_config(home: Path, text: str = CONFIG) -> Path:
    (home / "config").mkdir(parents=True, exist_ok=True)
    path = home / "config" / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_dash_v_and_help_name_the_home_variable_and_the_paths(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "-V")[1] == run(capsys, "--version")[1] == "visindigo 0.1.0\n"
    _, out, _ = run(capsys, "--help")
    assert "VISINDIGO_HOME" in out and "VISINDIGO_LOG" in out
    assert f"config       {home}/config/config.toml" in out
    assert f"data         {home}/data" in out and f"logs         {home}/data/logs" in out


def test_config_path(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "config", "path") == (0, f"{home}/config/config.toml\n", "")
    _, out, _ = run(capsys, "config", "path", "--all")
    assert f"credentials  {home}/config/credentials.toml" in out and f"logs         {home}/data/logs" in out
    other = home / "other.toml"
    assert run(capsys, "--config", str(other), "config", "path")[1] == f"{other}\n"


def test_config_show_gives_sources_and_never_a_key(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(home)
    monkeypatch.setenv("WORK_KEY", SECRET)
    monkeypatch.setenv("VISINDIGO_STREAM_FPS", "2")
    status, out, _ = run(capsys, "config", "show")
    assert status == 0
    assert SECRET not in out
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["theme"].endswith("# config.toml") and '"nord"' in lines["theme"]
    assert lines["run.max_tool_rounds"].endswith("# default") and "16" in lines["run.max_tool_rounds"]
    assert lines["ui.stream_fps"].endswith("# $VISINDIGO_STREAM_FPS")
    blink = lines["ui.cursor_blink"]
    assert blink.startswith("ui.cursor_blink = false") and blink.endswith("# default")
    assert lines["config_file"].endswith("# $VISINDIGO_HOME")
    assert "(set)" in lines["providers.work.api_key"] and lines["providers.work.api_key"].endswith("# $WORK_KEY")
    assert "***" in lines["providers.work.headers.Authorization"]
    assert "api_key=***" in lines["providers.work.base_url"]
    assert "move it to credentials.toml" in lines["providers.pasted.api_key"]
    assert "--token ***" in lines["mcp_servers.gh"] and "--api-key=***" in lines["mcp_servers.gh"]
    assert "***" in lines["mcp_servers.gh.env.GITHUB_TOKEN"]
    assert "problem(s)" in out  # the pasted key is reported, without the key


def test_mask_args() -> None:
    assert mask_args(["-y", "srv", "--token", "abc", "--api-key=x", "Bearer", "y", "plain"]) == [
        "-y", "srv", "--token", "***", "--api-key=***", "Bearer", "***", "plain"
    ]


def test_config_example_is_printed(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "config", "example")
    assert status == 0 and "#[providers.local]" in out and "#max_tool_rounds = 16" in out


def editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-editor"
    script.write_text(f"#!{sys.executable}\nimport sys\nopen(sys.argv[-1], 'a').write({body!r})\n")
    script.chmod(0o755)
    return str(script)


def test_config_edit_starts_from_the_example_and_reports_problems(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor(tmp_path, '\ntheme = ""\n[run]\nmax_tool_rounds = "many"\n'))
    status, out, _ = run(capsys, "config", "edit")
    assert status == 1
    assert "did not exist; it starts as the commented example" in out
    assert "2 problem(s)" in out and "run.max_tool_rounds" in out and "theme" in out
    text = (home / "config" / "config.toml").read_text()
    assert text.startswith("# Visindigo configuration: every setting")


def test_config_edit_of_a_good_file_says_so(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(home, 'theme = "nord"\n')
    monkeypatch.setenv("VISUAL", editor(tmp_path, "[run]\nmax_tool_rounds = 4\n") + " --wait")
    status, out, _ = run(capsys, "config", "edit")
    assert (status, out.strip()) == (0, f"{home}/config/config.toml: no problems.")


def test_config_edit_with_a_missing_editor_is_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(home, "")
    monkeypatch.setenv("VISUAL", "/nonexistent/editor")
    status, _, err = run(capsys, "config", "edit")
    assert status == 1 and err.count("\n") == 1 and "cannot start the editor" in err and "$EDITOR" in err


def test_install_method_and_the_advice_that_fits(tmp_path: Path) -> None:
    pipx, uv, venv = tmp_path / "pipx", tmp_path / "uv", tmp_path / "venv"
    for folder in (pipx, uv, venv):
        folder.mkdir()
    (pipx / "pipx_metadata.json").write_text("{}")
    (uv / "uv-receipt.toml").write_text("")
    assert [install_method(p) for p in (pipx, uv, venv)] == ["pipx", "uv", "pip"]
    assert extra_command("serve", ["textual-serve"], pipx) == "pipx inject visindigo textual-serve"
    assert extra_command("serve", ["textual-serve"], uv) == "uv tool install 'visindigo[serve]'"
    assert extra_command("serve", ["textual-serve"], venv) == f"{venv}/bin/python -m pip install 'visindigo[serve]'"


def test_serve_without_its_extra_gives_the_advice_of_the_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pipx_metadata.json").write_text("{}")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    status, _, err = run(capsys, "serve")
    assert status == 1 and "pipx inject visindigo textual-serve" in err and "pip install" not in err
