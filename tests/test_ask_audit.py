"""`visindigo ask`: the points of issue 26's shell half that the other ask tests left open (the audit in
/work/notes/i26b.md): `--json` when the run fails, and a question refused before anything is sent writing no JSON."""

from __future__ import annotations

import json
from pathlib import Path

from tests.llm_server import LLMServer, error_reply
from tests.test_ask_cli import ask, configure, stored
from visindigo.engine import Role


def test_json_of_a_failed_run_ends_with_run_failed_and_a_failed_end_record(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    llm_server.queue(error_reply(400, "the model is not loaded"))
    result = ask(home, "--json", "will this work?")
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stdout.splitlines()]  # every line is one JSON object
    failed = [r for r in records if r["type"] == "run_failed"]
    assert len(failed) == 1 and "the model is not loaded" in failed[0]["message"]
    end = records[-1]
    assert (end["type"], end["status"], end["exit_code"], end["saved"]) == ("end", "failed", 1, True)
    assert "the model is not loaded" in end["error"]
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert stored(home) == [[(Role.USER, "will this work?")]]


def test_json_writes_nothing_for_a_question_refused_before_anything_is_sent(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    home = configure(tmp_path, llm_server)
    usage = ask(home, "--json", "--template", "Nope", "q")  # wrong usage: status 2
    assert (usage.returncode, usage.stdout) == (2, "") and usage.stderr.count("\n") == 1
    missing = ask(home, "--json", "-f", str(tmp_path / "no-such-file"), "q")  # a file that cannot be attached
    assert (missing.returncode, missing.stdout) == (1, "") and missing.stderr.count("\n") == 1
    assert "no-such-file" in missing.stderr
    assert llm_server.requests == []
