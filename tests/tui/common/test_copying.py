"""Copy tells the truth: tmux's buffer (a real tmux server), a local clipboard tool, OSC 52 wording over SSH,
the browser under serve; and reading the clipboard back for {{CLIPBOARD}}."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from visindigo.tui.common.copying import copy_text, read_clipboard, system_tool

TEXT = "print('hello')\nprint('again')"


@pytest.fixture
def tmux_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A private tmux server; TMUX points at it the way tmux sets it for programs inside."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    socket = tmp_path / "tmux.sock"
    subprocess.run(["tmux", "-S", str(socket), "new-session", "-d", "-s", "i17copy"], check=True, timeout=10)
    try:
        yield {"PATH": os.environ["PATH"], "TMUX": f"{socket},1,0"}
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], timeout=10)


def fake_tool(folder: Path, name: str, record: Path) -> None:
    """A clipboard tool on PATH that keeps what it is given (and gives it back when asked to paste)."""
    folder.mkdir(exist_ok=True)
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\nimport sys\n"
        f"if '-o' in sys.argv or '--output' in sys.argv: sys.stdout.write(open({str(record)!r}).read())\n"
        f"else: open({str(record)!r}, 'w').write(sys.stdin.read())\n"
    )
    script.chmod(0o755)


def test_inside_tmux_the_text_goes_to_tmuxs_buffer_and_the_notice_says_so(tmux_env: dict[str, str]) -> None:
    result = copy_text(TEXT, "code block", environ=tmux_env)
    assert result.done == ["tmux"]
    socket = tmux_env["TMUX"].split(",")[0]
    buffer = subprocess.run(["tmux", "-S", socket, "show-buffer"], capture_output=True, text=True, timeout=10)
    assert buffer.stdout == TEXT
    assert "tmux's paste buffer" in result.notice and "2 lines" in result.notice
    assert read_clipboard(tmux_env) == (TEXT, "")


def test_locally_a_clipboard_tool_is_used(tmp_path: Path) -> None:
    record = tmp_path / "clip.txt"
    fake_tool(tmp_path / "bin", "xclip", record)
    environ = {"PATH": str(tmp_path / "bin"), "DISPLAY": ":0"}
    result = copy_text(TEXT, "last answer", environ=environ)
    assert result.done == ["xclip"] and record.read_text() == TEXT
    assert result.notice.startswith("Copied the last answer") and "system clipboard (xclip)" in result.notice
    assert read_clipboard(environ) == (TEXT, "")


def test_over_ssh_no_local_tool_is_used_and_the_notice_says_osc52(tmp_path: Path) -> None:
    record = tmp_path / "clip.txt"
    fake_tool(tmp_path / "bin", "xclip", record)
    environ = {"PATH": str(tmp_path / "bin"), "DISPLAY": ":0", "SSH_CONNECTION": "10.0.0.1 5000 10.0.0.2 22"}
    assert system_tool(environ) is None
    result = copy_text(TEXT, "last answer", environ=environ)
    assert result.done == [] and not record.exists()
    assert "sent the last answer" in result.notice.lower() and "(OSC 52)" in result.notice
    assert "paste to check" in result.notice and "alt+s saves it to a file" in result.notice
    text, why = read_clipboard(environ)
    assert text is None and "over SSH" in why


def test_without_tmux_or_a_tool_the_notice_does_not_claim_a_copy(tmp_path: Path) -> None:
    result = copy_text(TEXT, "last answer", environ={"PATH": str(tmp_path)})
    assert result.done == [] and not result.notice.startswith("Copied")
    assert "OSC 52" in result.notice and "alt+s" in result.notice
    assert read_clipboard({"PATH": str(tmp_path)})[0] is None


def test_under_serve_it_is_the_browsers_clipboard() -> None:
    result = copy_text(TEXT, "last answer", web=True, environ={})
    assert result.done == ["browser"] and "browser's clipboard" in result.notice


def test_a_failing_tool_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "wl-copy").write_text("#!/bin/sh\necho 'no compositor' >&2\nexit 1\n")
    (folder / "wl-copy").chmod(0o755)
    result = copy_text(TEXT, "x", environ={"PATH": str(folder), "WAYLAND_DISPLAY": "wayland-0"})
    assert result.failed == ["wl-copy: no compositor"] and "Failed: wl-copy: no compositor" in result.notice


async def test_the_apps_notice_names_what_was_done(tmux_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """alt+y in the app: OSC 52 at once, tmux's buffer from a worker, and a notice that says both."""
    from tests.tui.helpers import answer, make_app, settle, type_text

    monkeypatch.setenv("TMUX", tmux_env["TMUX"])
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = make_app([answer("the answer")])
    async with app.run_test() as pilot:
        await type_text(pilot, "question")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("alt+y")
        assert app.clipboard == "the answer"
        await settle(pilot)
        notices = [str(n.message) for n in app._notifications]
    socket = tmux_env["TMUX"].split(",")[0]
    buffer = subprocess.run(["tmux", "-S", socket, "show-buffer"], capture_output=True, text=True, timeout=10)
    assert buffer.stdout == "the answer"
    assert any(n.startswith("Copied the last answer") and "tmux's paste buffer" in n for n in notices), notices
