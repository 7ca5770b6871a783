"""`visindigo list / export / import`: the store from the shell, also while the app holds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.cli import main
from visindigo.engine import Center, Role
from visindigo.engine.export import export_json

HOLDER = Path(__file__).parent / "engine" / "storage" / "hold_store.py"


def fill(home: Path) -> dict[str, str]:
    center = Center.open(home)
    try:
        root = center.create_dialog()
        root.append_message(Role.USER, "Plan three days in Kyoto")
        root.append_message(Role.ASSISTANT, "Day 1: Fushimi Inari.")
        branch = center.regenerate(root)
        branch.append_message(Role.ASSISTANT, "Day 1: Arashiyama.")
        other = center.create_dialog()
        other.append_message(Role.USER, "Review this SQL")
        return {"root": root.id, "branch": branch.id, "other": other.id}
    finally:
        center.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """A home whose store another process holds open, as a running app does."""
    home = tmp_path / "held"
    fill(home)
    holder = subprocess.Popen([sys.executable, str(HOLDER), str(home)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield home
    finally:
        holder.kill()
        holder.wait(timeout=10)


def test_list_shows_the_tree_with_short_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = fill(tmp_path)
    status, out, _ = run(capsys, "list", "--data-dir", str(tmp_path / "data"))
    assert status == 0
    lines = out.splitlines()
    # the app's tree order: the newest dialog first, branches under the dialog they came from
    assert [line[:8] for line in lines] == [ids["other"][:8], ids["root"][:8], ids["branch"][:8]]
    assert lines[0].endswith("  Review this SQL  (1 message)")
    assert lines[1].endswith("  Plan three days in Kyoto  (2 messages)")
    assert lines[2].endswith("    Plan three days in Kyoto  (2 messages)")  # indented under its parent
    status, out, err = run(capsys, "--data-dir", str(tmp_path / "empty"), "list")
    assert (status, out, err) == (0, "", "No dialogs yet.\n")


def test_export_by_id_prefix_to_stdout_or_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ids = fill(tmp_path)
    data = str(tmp_path / "data")
    status, out, _ = run(capsys, "export", ids["root"][:6], "--branches", "--data-dir", data)
    assert status == 0
    center = Center.open(tmp_path)
    try:
        assert out == export_json(center, ids["root"], with_branches=True)
    finally:
        center.close()
    assert [d["id"] for d in json.loads(out)["dialogs"]] == [ids["root"], ids["branch"]]

    status, _, err = run(capsys, "export", ids["other"], "-o", str(tmp_path / "out" / "sql.md"), "--data-dir", data)
    written = tmp_path / "out" / "sql.md"
    assert status == 0 and f"Wrote {written} (markdown)" in err
    assert written.read_text(encoding="utf-8").startswith("# Review this SQL\n")
    if os.name == "posix":
        assert written.stat().st_mode & 0o077 == 0


def test_unknown_and_ambiguous_dialog_names_are_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill(tmp_path)
    data = str(tmp_path / "data")
    status, out, err = run(capsys, "export", "zz-no-such", "--data-dir", data)
    assert (status, out) == (1, "")
    assert err == "visindigo: no dialog has an id beginning with 'zz-no-such' (`visindigo list` shows them)\n"
    status, _, err = run(capsys, "export", "", "--data-dir", data)  # every id begins with ""
    assert status == 1 and err.startswith("visindigo: name a dialog by its id")
    center = Center.open(tmp_path)
    try:
        for _ in range(40):  # 40 random ids: two of them share a first hex digit
            center.create_dialog()
        first_digits = [s.id[0] for s in center.dialog_summaries()]
    finally:
        center.close()
    shared = next(digit for digit in first_digits if first_digits.count(digit) > 1)
    status, _, err = run(capsys, "export", shared, "--data-dir", data)
    assert status == 1 and f"'{shared}' begins {first_digits.count(shared)} dialog ids" in err
    assert "give more of the id" in err and "Traceback" not in err


def test_import_round_trips_byte_for_byte_and_reports_duplicates_and_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = fill(tmp_path / "a")
    export_file = tmp_path / "kyoto.json"
    assert run(capsys, "export", ids["root"], "--branches", "-o", str(export_file), "--data-dir",
               str(tmp_path / "a" / "data"))[0] == 0
    target = str(tmp_path / "b" / "data")
    status, _, err = run(capsys, "import", str(export_file), "--data-dir", target)
    assert (status, err) == (0, f"{export_file}: 2 dialogs imported.\n")
    status, out, _ = run(capsys, "export", ids["root"], "--branches", "--data-dir", target)
    assert out == export_file.read_text(encoding="utf-8")

    not_json = tmp_path / "notes.md"
    not_json.write_text("# notes\n", encoding="utf-8")
    status, _, err = run(capsys, "import", str(export_file), str(not_json), "--data-dir", target)
    assert status == 1
    assert err.splitlines() == [
        f"{export_file}: 0 dialogs imported, 2 already there, skipped.",
        f"visindigo: {not_json}: not a JSON file (Expecting value: line 1 column 1 (char 0))",
    ]


def test_list_and_export_read_a_store_the_app_holds_and_import_waits_for_it(
    held: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(held / "data")
    status, out, err = run(capsys, "list", "--data-dir", data)
    assert status == 0 and len(out.splitlines()) == 3, err
    root_id = out.splitlines()[1][:8]  # newest first: the SQL review, then the Kyoto plan and its branch
    status, out, _ = run(capsys, "export", root_id, "--branches", "--data-dir", data)
    assert status == 0 and len(json.loads(out)["dialogs"]) == 2
    export_file = tmp_path / "x.json"
    export_file.write_text(out, encoding="utf-8")
    status, _, err = run(capsys, "import", str(export_file), "--data-dir", data)
    assert status == 1
    assert err.startswith(f"visindigo: Visindigo is open on {data} (process ") and "close it, then import" in err


def test_import_exits_0_when_it_only_repaired_and_1_when_a_dialog_was_left_out(tmp_path: Path) -> None:
    """Issue 25 §16: a cleaned title is a warning (printed, exit 0); only a dialog left out makes it exit 1."""
    repaired = tmp_path / "repaired.json"
    repaired.write_text(json.dumps({"format": "visindigo.dialogs", "version": 1, "dialogs": [
        {"id": "t1", "title": "Kyoto\x1b]0;owned\x07\nplan", "messages": [{"role": "user", "content": "hi"}]},
        {"id": "t2", "title": "fine", "messages": []},
    ]}), encoding="utf-8")  # fmt: skip
    left_out = tmp_path / "left-out.json"
    left_out.write_text(json.dumps({"format": "visindigo.dialogs", "version": 1, "dialogs": [
        {"id": "t3", "messages": []},
        {"id": "t4", "messages": "not a list"},
    ]}), encoding="utf-8")  # fmt: skip
    env = {**os.environ, "VISINDIGO_HOME": str(tmp_path / "home")}

    def visindigo(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "visindigo", *argv], capture_output=True, text=True, env=env,
                              timeout=120)  # fmt: skip

    done = visindigo("import", str(repaired))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"{repaired}: 2 dialogs imported.",
        f"{repaired}: dialog #1 (t1): the title held control characters or line breaks; they were removed",
    ]
    done = visindigo("import", str(left_out))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{left_out}: 1 dialog imported.",
        f"{left_out}: dialog #2: 'messages' is not a list; not imported",
    ]
    listed = visindigo("list")
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 3 and "Traceback" not in listed.stderr
