"""Issue 11 §1 (the command line), §3 (read-only commands, no traceback) and §4 (imports), end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile_text import HOSTILE, MARKERS, leaks, run_in_pty
from visindigo.cli import main
from visindigo.engine import Center, Message, Role

ROOT = Path(__file__).resolve().parents[1]


def cli(*argv: str, env_home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if env_home is not None:
        env["VISINDIGO_HOME"] = str(env_home)
    return subprocess.run([sys.executable, "-m", "visindigo", *argv], capture_output=True, text=True, env=env,
                          timeout=120, cwd=ROOT)  # fmt: skip


def hostile_home(tmp_path: Path) -> tuple[Path, str]:
    """A store whose dialog title, messages, model id and tool call names carry every hostile sequence, written
    past the entry boundary (as an old version or another program might have)."""
    home = tmp_path / "home"
    center = Center.open(home)
    try:
        dialog = center.create_dialog()
        dialog.model_id = f"model {HOSTILE}"
        dialog.append_message(Role.USER, f"question {HOSTILE}")
        function = {"name": f"tool{HOSTILE}", "arguments": "{}"}
        calls = json.dumps([{"id": "c1", "type": "function", "function": function}])
        dialog.append_message(Message(Role.ASSISTANT, f"answer {HOSTILE}", tool_calls=calls, reasoning=HOSTILE))
        dialog.append_message(Message(Role.TOOL, f"result {HOSTILE}", tool_call_id="c1"))
        assert center.store is not None
        center.store.set_title(dialog.id, f"Title {HOSTILE}" + "long " * 200)
        return home, dialog.id
    finally:
        center.close()


def test_no_command_lets_a_control_sequence_reach_the_terminal(tmp_path: Path) -> None:
    home, dialog_id = hostile_home(tmp_path)
    env = {**os.environ, "VISINDIGO_HOME": str(home), "TERM": "xterm-256color"}
    hostile_file = tmp_path / "export\x1b]0;WINDOWTITLE\x07\u202e.json"
    hostile_file.write_text(f'{{"dialogs": [1, "x"], "format": "{HOSTILE}"}}')
    runs = {
        "list": ["list"],
        "export markdown": ["export", dialog_id[:8], "--format", "markdown"],
        "export json": ["export", dialog_id[:8]],
        "export error": ["export", f"nope{HOSTILE}"],
        "import error": ["import", str(hostile_file)],
    }
    for what, argv in runs.items():
        output = run_in_pty([sys.executable, "-m", "visindigo", *argv], env, cwd=ROOT)
        found = leaks(output)
        if what == "export json":  # lossless: the markers stay, as inert \u001b-escaped text inside strings
            found = [leak for leak in found if leak not in MARKERS] + (["ESC"] if b"\x1b" in output else [])
        assert not found, (what, found, output[-600:])
        assert b"Traceback" not in output, (what, output[-600:])
        if what == "list":
            line = output.decode().strip()
            assert line.startswith(dialog_id[:8]) and "Title OSC 52 clipboard, BEL:" in line
            assert len(line) < 200  # the long title is cut for display
        if what == "export json":
            document = json.loads(output.decode().replace("\r\n", "\n"))
            assert document["dialogs"][0]["messages"][0]["content"] == f"question {HOSTILE}"  # lossless


def test_titles_made_from_a_first_message_keep_no_control_characters(tmp_path: Path) -> None:
    center = Center.open(tmp_path / "home")
    try:
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, f"Plan {HOSTILE}")
        assert not leaks(dialog.title.encode()) and "\x1b" not in dialog.title and dialog.title.startswith("Plan")
        dialog.title = f"Renamed {HOSTILE}\nsecond line " + "x" * 2000  # a template's or MCP prompt's name, say
        assert dialog.title.startswith("Renamed OSC 52") and not leaks(dialog.title.encode())
        assert "\n" not in dialog.title and len(dialog.title) == 500
    finally:
        center.close()


# --- §3: list and export only read ----------------------------------------------------------------------------


def test_list_and_export_create_nothing_where_there_is_no_store(tmp_path: Path) -> None:
    data = tmp_path / "never-made"
    listed = cli("list", "--data-dir", str(data))
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "", "No dialogs yet.\n")
    exported = cli("export", "abc", "--data-dir", str(data))
    no_dialog = "visindigo: no dialog has an id beginning with 'abc' (there are no dialogs yet)\n"
    assert (exported.returncode, exported.stdout, exported.stderr) == (1, "", no_dialog)
    assert not data.exists()
    home = tmp_path / "fresh-home"  # a first run: VISINDIGO_HOME names a folder that is not there yet
    result = cli("list", env_home=home)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "No dialogs yet.\n")
    for argv in (["export", "abc"], ["export", "abc", "--format", "markdown", "-o", str(tmp_path / "x.md")]):
        result = cli(*argv, env_home=home)
        assert (result.returncode, result.stdout, result.stderr) == (1, "", no_dialog), argv
    assert not home.exists() and not (tmp_path / "x.md").exists()


def test_list_takes_no_lock_and_changes_nothing(tmp_path: Path) -> None:
    home, _ = hostile_home(tmp_path)
    data = home / "data"
    (data / "visindigo.lock").unlink()
    before = sorted(p.name for p in data.iterdir())
    assert cli("list", env_home=home).returncode == 0
    assert cli("export", "x", env_home=home).returncode == 1
    assert sorted(p.name for p in data.iterdir()) == before


def test_list_and_export_on_a_damaged_store_say_so_in_one_line_and_repair_nothing(
    damaged_big_home: tuple[Path, list[str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home, ids = damaged_big_home
    data = home / "data"
    before = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir())
    statuses = [main(["list", "--data-dir", str(data)])]
    for number, dialog_id in enumerate(ids):
        statuses.append(main(["export", dialog_id, "--data-dir", str(data), "-o", str(tmp_path / f"{number}.json")]))
    err = capsys.readouterr().err
    failures = [line for line in err.splitlines() if not line.startswith("Wrote ")]
    assert 1 in statuses and len(failures) == statuses.count(1), err  # one line per failing command
    for line in failures:
        assert line.startswith("visindigo: The dialog store ") and "is damaged" in line, line
        assert line.endswith("start Visindigo on it to repair it.") and "Traceback" not in line
    assert sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in data.iterdir()) == before


# --- §3: never a traceback --------------------------------------------------------------------------------------


def one_line_failure(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("visindigo")
    return result.stderr


# A full disk: tests/test_full_disk.py fills a real one.


def test_deep_json_permissions_and_a_locked_store_are_one_line_each(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    message = one_line_failure(cli("import", str(deep), "--data-dir", str(tmp_path / "d1")))
    assert "deep.json" in message and "nested too deeply" in message
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    assert "a-folder.json" in one_line_failure(cli("import", str(folder), "--data-dir", str(tmp_path / "d2")))
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    assert "file-not-folder" in one_line_failure(cli("import", str(deep), "--data-dir", str(blocked / "data")))
    held = subprocess.Popen([sys.executable, str(ROOT / "tests/engine/storage/hold_store.py"), str(tmp_path / "h")],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "ready"
        assert "close it" in one_line_failure(cli("import", str(deep), "--data-dir", str(tmp_path / "h" / "data")))
    finally:
        held.kill()
        held.wait(10)


# --- §4: imports ------------------------------------------------------------------------------------------------


def test_hostile_imports_are_repaired_and_every_repair_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad_calls = [1, "x", {"id": 5, "function": "nope"}]
    good_calls = [{"id": "k1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]
    unmatched = [{"id": "k2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]
    dialogs = [
        {"id": "A", "branch_from_id": "B", "title": "a", "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "calling", "tool_calls": bad_calls},
            {"role": "assistant", "content": "again", "tool_calls": json.dumps(good_calls)},
            {"role": "tool", "tool_call_id": "k1", "content": "12:00"},
            {"role": "assistant", "content": "more", "tool_calls": unmatched},
            {"role": "tool", "tool_call_id": "other", "content": "?"},
        ]},
        {"id": "B", "branch_from_id": "A", "title": "b",
         "messages": ["not an object", {"role": "wizard", "content": "x"}]},
        {"id": "C", "branch_from_id": "C", "title": "T" * 1_000_000, "messages": []},
        {"id": "D", "branch_from_id": "E", "messages": []},
        {"id": "E", "branch_from_id": "F", "messages": []},
        {"id": "F", "branch_from_id": "D", "messages": []},
    ]  # fmt: skip
    export = tmp_path / "hostile.json"
    export.write_text(json.dumps({"format": "visindigo.dialogs", "version": 1, "dialogs": dialogs}))
    data = str(tmp_path / "data")
    status = main(["import", str(export), "--data-dir", data])
    err = capsys.readouterr().err
    assert status == 0  # every dialog is in: the repairs are reported, but nothing was left out
    assert "6 dialogs imported" in err
    for expected in ("message #2: its tool calls were dropped (call #1 is a number, not an object)",
                     "message #5: its tool calls were dropped (their ids do not match",
                     "message #1 is text, not an object; left out", "unknown role ('wizard'); imported as a user",
                     "the title is 1,000,000 characters long; cut to 500", "dialog A branched from",
                     "dialog C branched from itself", "dialog D branched from"):  # fmt: skip
        assert expected in err, (expected, err)
    assert err.count("a cycle") == 3
    status = main(["list", "--data-dir", data])
    out = capsys.readouterr().out
    assert status == 0 and len(out.splitlines()) == 6  # nothing hidden by a cycle
    assert max(len(line) for line in out.splitlines()) < 200
    center = Center.open(tmp_path, data_dir=data)
    try:
        a = center.get_dialog("A")
        assert a is not None
        assert [m.tool_calls for m in a.messages][1] == "" and a.message_at(1).content == "calling"
        assert a.message_at(2).parsed_tool_calls() == good_calls  # a well-formed array stays
        assert a.message_at(4).tool_calls == ""
        b = center.get_dialog("B")
        assert b is not None and [(m.role, m.content) for m in b.messages] == [(Role.USER, "x")]
    finally:
        center.close()
