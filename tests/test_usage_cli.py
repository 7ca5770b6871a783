"""`visindigo usage`: read-only, each answer once across branches, per model / provider / day, CSV, prices."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
import time
from pathlib import Path

from tests.hostile_text import HOSTILE, leaks
from visindigo.engine import Center, Message, Role

DAY = 86400.0


def answer(model: str, provider: str, at: float, tokens_in: int, out: int, **more: object) -> Message:
    usage = {"input_tokens": tokens_in, "output_tokens": out, "reasoning_tokens": 0, "cached_tokens": 0}
    usage.update({"cache_write_tokens": 0, "answer": f"{model}-{at}", "at": at, **more})
    return Message(Role.ASSISTANT, "an answer", meta={"provider_id": provider, "model_id": model, "usage": usage})


def fill(home: Path) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        """
[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1"
settings = { server = "llama.cpp" }

[providers.gateway]
kind = "openai"
base_url = "https://gateway.example.invalid/v1"
models = [{ id = "house-model", price = { input = 2.0, output = 10.0, cached_input = 0.5 } }]

[providers.anthropic]
kind = "anthropic"
base_url = "https://api.anthropic.com/v1"
""",
        encoding="utf-8",
    )
    now = time.time()
    center = Center.open(home)
    try:
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "q1")
        dialog.append_message(
            answer("house-model", "gateway", now - 3 * DAY, 1_000_000, 100_000, cached_tokens=400_000)
        )
        dialog.append_message(Role.USER, "q2")
        dialog.append_message(answer("gemma", "local", now - DAY, 500, 50))
        dialog.append_message(Role.USER, "q3")
        dialog.append_message(answer("claude-sonnet-4-20250514", "anthropic", now, 10_000, 1_000))
        dialog.append_message(Role.USER, "q4")
        dialog.append_message(answer(HOSTILE, "gateway", now, 7, 3))
        center.branch_at(dialog, 6)  # a branch holding copies of the first three answers: counted once
    finally:
        center.close()


def usage(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "VISINDIGO_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "visindigo", "usage", *argv], capture_output=True, text=True, env=env, timeout=60
    )


def rows(text: str) -> dict[str, dict[str, str]]:
    return {row[next(iter(row))]: row for row in csv.DictReader(io.StringIO(text))}


def test_per_model_each_answer_once_with_its_cost(tmp_path: Path) -> None:
    fill(tmp_path)
    result = usage(tmp_path, "--csv")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    house = table["house-model"]
    assert (house["answers"], house["input_tokens"], house["cached_tokens"]) == ("1", "1000000", "400000")
    # the config's price: 600k plain at $2, 400k cached at $0.5, 100k out at $10
    assert float(house["cost_usd"]) == 1.2 + 0.2 + 1.0
    assert float(table["gemma"]["cost_usd"]) == 0  # a local server costs nothing
    claude = table["claude-sonnet-4-20250514"]  # the price catalogue: $3 in, $15 out per million
    assert claude["answers"] == "1" and abs(float(claude["cost_usd"]) - (0.03 + 0.015)) < 1e-9
    assert not leaks(result.stdout.encode())


def test_per_provider_and_per_day_and_since(tmp_path: Path) -> None:
    fill(tmp_path)
    by_provider = rows(usage(tmp_path, "--by", "provider", "--csv").stdout)
    assert by_provider["gateway"]["answers"] == "2" and by_provider["local"]["answers"] == "1"
    assert by_provider["gateway"]["unknown_cost_answers"] == "1"  # the hostile model id has no price
    by_day = usage(tmp_path, "--by", "day").stdout.splitlines()
    assert by_day[0].startswith("day") and len(by_day) == 4  # three days with answers
    since = time.strftime("%Y-%m-%d", time.localtime(time.time() - 1.5 * DAY))
    recent = rows(usage(tmp_path, "--since", since, "--csv").stdout)
    assert "house-model" not in recent and "gemma" in recent


def test_the_table_marks_unknown_costs_and_bad_input_is_one_line(tmp_path: Path) -> None:
    fill(tmp_path)
    table = usage(tmp_path, "--by", "provider")
    assert table.returncode == 0 and "+ 1 unknown" in table.stdout and not leaks(table.stdout.encode())
    bad = usage(tmp_path, "--since", "last tuesday")
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "YYYY-MM-DD" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_no_store_says_so_and_creates_nothing(tmp_path: Path) -> None:
    result = usage(tmp_path / "empty")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "No answers with usage yet.\n")
    assert not (tmp_path / "empty" / "data").exists()


def test_it_reads_while_the_app_holds_the_store(tmp_path: Path) -> None:
    from tests.test_dialogs_cli import HOLDER

    fill(tmp_path)
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        result = usage(tmp_path, "--csv")
        assert result.returncode == 0 and "house-model" in result.stdout
    finally:
        holder.terminate()
        holder.wait(timeout=10)


def test_per_family_a_dialog_and_its_branches_each_answer_once(tmp_path: Path) -> None:
    fill(tmp_path)  # one family: the dialog (4 answers) and a branch holding copies of the first three
    now = time.time()
    center = Center.open(tmp_path)
    try:
        first = next(s for s in center.dialog_summaries() if not s.branch_from_id)
        dialog = center.get_dialog(first.id)
        assert dialog is not None
        branch = next(s for s in center.dialog_summaries() if s.branch_from_id == first.id)
        held = center.get_dialog(branch.id)
        assert held is not None
        held.append_message(answer("gemma", "local", now, 40, 4))  # a new answer in the branch: the family's too
        other = center.create_dialog()
        other.title = "Other " + HOSTILE
        other.append_message(Role.USER, "q")
        other.append_message(answer("gemma", "local", now + 1, 60, 6))
        other_id = other.id
    finally:
        center.close()
    result = usage(tmp_path, "--by", "family", "--csv")
    assert result.returncode == 0, result.stderr
    table = rows(result.stdout)
    assert len(table) == 2 and not leaks(result.stdout.encode())
    family = next(row for key, row in table.items() if key.endswith(f"({first.id[:8]})"))
    assert family["answers"] == "5"  # four in the dialog, one in its branch; the branch's copies not again
    assert int(family["input_tokens"]) == 1_000_000 + 500 + 10_000 + 7 + 40
    alone = next(row for key, row in table.items() if key.endswith(f"({other_id[:8]})"))
    assert alone["answers"] == "1" and alone["input_tokens"] == "60" and next(iter(alone.values())).startswith("Other")
    printed = usage(tmp_path, "--by", "family").stdout.splitlines()
    assert printed[0].startswith("family") and len(printed) == 3
