"""`visindigo doctor` on a broken set-up in a temp home: every finding named, no key in the report, and
providers asked only for their model list (nothing that costs tokens)."""

from __future__ import annotations

import os
import pty
import sys
import threading
from pathlib import Path

import pytest

from tests.llm_server import LLMServer
from visindigo.cli import main
from visindigo.doctor import build_report
from visindigo.doctor_terminal import SYNC_QUERY, colour_depth, query_synchronized_output, terminal_facts
from visindigo.engine.paths import resolve_paths

SECRET = "sk-doctor-secret-0123456789"


def broken_home(home: Path, llm_server: LLMServer) -> None:
    config = home / "config"
    config.mkdir(parents=True)
    (config / "config.toml").write_text(
        f"""
theme = ""

[providers.good]
kind = "openai"
base_url = "{llm_server.openai_url}"
api_key_env = "DOCTOR_KEY"
headers = {{ "X-Token" = "{SECRET}" }}

[providers.closed]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"

[providers.rejecting]
kind = "openai"
base_url = "{llm_server.openai_url}"

[mcp_servers.time]
command = "{sys.executable}"
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]

[mcp_servers.missing]
command = "/nonexistent/mcp-server"
""",
        encoding="utf-8",
    )
    credentials = config / "credentials.toml"
    credentials.write_text(f'[providers.rejecting]\napi_key = "{SECRET}"\n', encoding="utf-8")
    credentials.chmod(0o644)
    (home / "data").write_text("a file where the data folder should be")


def test_the_report_on_a_broken_setup(
    tmp_path: Path, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISINDIGO_HOME", str(tmp_path))
    monkeypatch.setenv("DOCTOR_KEY", SECRET)
    broken_home(tmp_path, llm_server)
    llm_server.models = ["m-one", "m-two"]
    report = build_report(resolve_paths(), ask_terminal=False)
    text = report.text()
    assert SECRET not in text
    lines = text.splitlines()

    def line(*parts: str) -> str:
        found = [each for each in lines if all(p in each for p in parts)]
        assert found, f"no line with {parts} in:\n{text}"
        return found[0]

    assert line("visindigo 0.1.0", "installed with")
    assert line("textual 8.", "httpx")
    assert line("credentials", "others can read it", "chmod 600").lstrip().startswith("!!")
    assert line("data", "is a file").lstrip().startswith("!!")
    assert line("theme", "!!")
    assert line("good", "2 model(s): m-one, m-two", "key from $DOCTOR_KEY: set").lstrip().startswith("ok")
    assert line("closed", "!!")
    assert line("time", "started", "get_current_time").lstrip().startswith("ok")
    assert line("missing", "!!")
    assert line("TERM=")
    assert line("synchronized output")
    assert report.problems >= 5 and text.endswith("problem(s) found.")
    assert {(r.method, r.path.split("?")[0]) for r in llm_server.requests} == {("GET", "/v1/models")}
    sent = [r for r in llm_server.requests if r.headers.get("x-token")]
    assert sent and all(r.headers["x-token"] == SECRET for r in sent)  # the server got it; the report did not


def test_the_command_exits_1_on_problems_and_offline_skips_the_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISINDIGO_HOME", str(tmp_path))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.toml").write_text("theme = [1\n")
    assert main(["doctor", "--offline"]) == 1
    out = capsys.readouterr().out
    assert "not valid TOML" in out and "not checked (--offline)" in out


def test_terminal_facts_say_what_they_mean_for_copying(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    facts = terminal_facts({"TERM": "screen-256color", "STY": "1.pts", "SSH_CONNECTION": "a b c d"},
                           ask_terminal=False)
    assert (facts.multiplexer, facts.over_ssh) == ("screen", True)
    assert any("OSC 52" in note and "SSH" in note for note in facts.copy_notes)
    local = terminal_facts({"TERM": "xterm", "TMUX": "/tmp/tmux-0/default,1,0"}, ask_terminal=False)
    assert local.multiplexer == "tmux" and any("tmux's paste buffer" in n for n in local.copy_notes)
    assert any("no clipboard tool" in n for n in local.copy_notes)
    assert colour_depth({"TERM": "xterm", "COLORTERM": "truecolor"}).startswith("truecolor")
    assert colour_depth({"TERM": "xterm-256color"}).startswith("256")


def _play_terminal(master: int, answer: bytes) -> None:
    seen = b""
    while SYNC_QUERY not in seen:
        seen += os.read(master, 64)
    if answer:
        os.write(master, answer)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [(b"\x1b[?2026;2$y", "supported"), (b"\x1b[?2026;0$y", "not recognised"), (b"", "no answer within 0.2 s")],
)
def test_the_synchronized_output_query_reads_the_terminals_answer(answer: bytes, expected: str) -> None:
    master, slave = pty.openpty()
    try:
        player = threading.Thread(target=_play_terminal, args=(master, answer), daemon=True)
        player.start()
        assert query_synchronized_output(slave, timeout=0.2).startswith(expected)
        player.join(timeout=5)
    finally:
        os.close(master)
        os.close(slave)
