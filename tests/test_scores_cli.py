"""`visindigo scores`: read-only, sanitised, one line on trouble, overall and per tag, CSV."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile_text import HOSTILE, leaks
from tests.test_dialogs_cli import HOLDER, run
from visindigo.engine import Center
from visindigo.engine.compare import Pick, PickedModel
from visindigo.engine.storage.schema import MIGRATIONS, migrate


def record(home: Path, *picks: tuple[str, str, str, bool]) -> None:
    """(winner, loser, tag, blind) picks, one second apart."""
    center = Center.open(home)
    try:
        for when, (winner, loser, tag, blind) in enumerate(picks, start=1):
            losers = (PickedModel("dl", "local", loser),)
            center.record_pick(Pick("q", PickedModel("dw", "local", winner), losers, float(when), blind, tag))
    finally:
        center.close()


def test_nothing_there_is_no_comparisons_yet_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "never-made"
    assert run(capsys, "scores", "--data-dir", str(data)) == (0, "", "No comparisons yet.\n")
    assert not data.exists()
    old = tmp_path / "old"
    old.mkdir()
    conn = sqlite3.connect(old / "dialogs.sqlite3", isolation_level=None)
    migrate(conn, MIGRATIONS[:4])  # a store from before comparisons: no picks table, and it stays version 4
    conn.close()
    assert run(capsys, "--data-dir", str(old), "scores", "--csv") == (0, "", "No comparisons yet.\n")
    conn = sqlite3.connect(old / "dialogs.sqlite3")
    assert conn.execute("PRAGMA user_version").fetchone() == (4,)
    conn.close()


def test_the_tables_overall_and_per_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record(tmp_path, ("qwen", "llama", "sql", True), ("qwen", "llama", "", False), ("llama", "qwen", "sql", False))
    status, out, err = run(capsys, "scores", "--data-dir", str(tmp_path / "data"))
    assert (status, err) == (0, "")
    overall, sql = out.split("\n\n")
    lines = overall.splitlines()
    assert lines[0] == "Overall: 3 picks, 1 blind"
    assert lines[1].split() == ["rating", "wins", "losses", "model", "provider"]
    assert lines[2].split() == ["1011.7", "2", "1", "qwen", "local"]  # 1030.5 after two wins, then an upset
    assert lines[3].split() == ["988.3", "1", "2", "llama", "local"]
    assert sql.splitlines()[0] == "Tag sql: 2 picks, 1 blind"
    assert [line.split()[3] for line in sql.splitlines()[2:]] == ["llama", "qwen"]  # the upset counts more

    status, out, _ = run(capsys, "scores", "--tag", "sql", "--data-dir", str(tmp_path / "data"))
    assert status == 0 and out.startswith("Tag sql: 2 picks") and "Overall" not in out
    status, out, err = run(capsys, "scores", "--tag", "poetry", "--data-dir", str(tmp_path / "data"))
    assert (status, out, err) == (0, "", "No comparisons with the tag 'poetry' yet (tags: sql).\n")


def test_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record(tmp_path, ("qwen", "llama", "sql", False))
    status, out, _ = run(capsys, "scores", "--csv", "--data-dir", str(tmp_path / "data"))
    rows = list(csv.reader(io.StringIO(out)))
    assert status == 0
    assert rows == [
        ["scope", "provider", "model", "wins", "losses", "rating"],
        ["(all)", "local", "qwen", "1", "0", "1016.0"],
        ["(all)", "local", "llama", "0", "1", "984.0"],
        ["sql", "local", "qwen", "1", "0", "1016.0"],
        ["sql", "local", "llama", "0", "1", "984.0"],
    ]


def test_hostile_model_ids_and_tags_reach_no_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record(tmp_path, (f"model {HOSTILE}", "plain", f"tag {HOSTILE}", False))
    for extra in ((), ("--csv",)):
        status, out, err = run(capsys, "scores", *extra, "--data-dir", str(tmp_path / "data"))
        assert status == 0 and "plain" in out
        assert not leaks(out.encode()) and not leaks(err.encode())


def test_it_reads_while_the_app_holds_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "held"
    record(home, ("qwen", "llama", "", False))
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(home)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        status, out, _ = run(capsys, "scores", "--data-dir", str(home / "data"))
        assert status == 0 and "qwen" in out
    finally:
        holder.kill()
        holder.wait(timeout=10)


def test_a_foreign_file_is_one_line_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "dialogs.sqlite3").write_bytes(b"this is no database" * 100)
    status, out, err = run(capsys, "scores", "--data-dir", str(data))
    assert status == 1 and out == ""
    assert err.startswith("visindigo: ") and len(err.strip().splitlines()) == 1 and "Traceback" not in err
