"""The issue's fault test: a writer process streaming into the store is killed with SIGKILL mid-reply.

The next open must keep every message appended before the kill, and the partial reply up to its last
checkpoint — at most about a second older than the last text the process received.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from visindigo.engine import Center, Role

WRITER = Path(__file__).with_name("stream_writer.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


def start_writer(home: Path, mode: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(home), mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env,
    )


def read_until(process: subprocess.Popen[str], pattern: str, timeout: float = 30.0) -> list[str]:
    assert process.stdout is not None
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"writer exited early: {process.stderr.read() if process.stderr else ''}")
        lines.append(line.strip())
        if re.match(pattern, line):
            return lines
    raise AssertionError(f"no line matching {pattern!r} within {timeout} s")


def kill(process: subprocess.Popen[str]) -> list[str]:
    process.send_signal(signal.SIGKILL)
    out, _ = process.communicate(timeout=10)
    assert process.returncode == -signal.SIGKILL
    return [line.strip() for line in out.splitlines()]


def sent_chunks(lines: list[str]) -> list[tuple[int, float]]:
    return [(int(p[1]), float(p[2])) for p in (line.split() for line in lines) if p and p[0] == "sent"]


def recovered(home: Path, dialog_id: str) -> list[tuple[Role, str, dict[str, object]]]:
    center = Center.open(home)
    try:
        dialog = center.get_dialog(dialog_id)
        assert dialog is not None
        return [(m.role, m.content, m.meta) for m in dialog.messages]
    finally:
        center.close()


def test_sigkill_mid_reply_keeps_the_messages_and_the_reply_up_to_its_last_checkpoint(tmp_path: Path) -> None:
    home = tmp_path / "home"
    writer = start_writer(home, "steady")
    try:
        lines = read_until(writer, r"sent 120 ")  # ~2.5 s of streaming: two checkpoints at least
    finally:
        lines += kill(writer)
    dialog_id = lines[0].split()[1]
    chunks = sent_chunks(lines)
    messages = recovered(home, dialog_id)

    assert [(role, content) for role, content, _ in messages[:3]] == [
        (Role.USER, "first question"),
        (Role.ASSISTANT, "first answer"),
        (Role.USER, "second question"),
    ]
    role, partial, meta = messages[3]
    assert (role, meta) == (Role.ASSISTANT, {"status": "interrupted"})
    kept = [int(n) for n in re.findall(r"<(\d+)>", partial)]
    assert kept == list(range(len(kept)))  # a clean prefix of what was sent, nothing garbled
    assert partial == "".join(f"<{n}>" for n in kept)
    assert len(kept) >= 50
    last_kept_at = dict(chunks)[kept[-1]]
    last_sent_at = chunks[-1][1]
    assert last_sent_at - last_kept_at <= 1.5, "more than a second of text was lost"
    assert len(messages) == 4


def test_sigkill_after_the_stream_stalls_loses_nothing_it_received(tmp_path: Path) -> None:
    home = tmp_path / "home"
    writer = start_writer(home, "stall")
    try:
        lines = read_until(writer, r"stalled ")
        time.sleep(1.5)  # the checkpoint timer must write the tail although no more text arrives
    finally:
        lines += kill(writer)
    dialog_id = lines[0].split()[1]
    messages = recovered(home, dialog_id)
    assert messages[3] == (Role.ASSISTANT, "".join(f"<{n}>" for n in range(15)), {"status": "interrupted"})
