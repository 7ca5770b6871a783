"""The plain mode's conversation on a pty: the answer streams as plain text, every state change is one line
written once, and the byte stream holds no escape sequence at all (issue 28, "A plain line mode")."""

from __future__ import annotations

import re
from pathlib import Path

from tests.llm_server import LLMServer, error_reply, openai_stream
from tests.plain.conftest import Start
from tests.plain.terminal import carriage_returns, control_characters
from visindigo.engine import Center, Role


def test_an_answer_streams_as_labelled_plain_text(start_plain: Start, llm_server: LLMServer, plain_home: Path) -> None:
    llm_server.queue(
        openai_stream(
            ["Hel", "lo ", "there", "\n\nSecond line."], reasoning=["Think", "ing"], usage=(5, 7), delay_between=0.05
        )
    )
    terminal = start_plain()
    opening = terminal.prompt()
    assert "Visindigo, plain mode." in opening and "A new dialog." in opening
    assert "Model: test-model of local." in opening
    terminal.send("Say hello")
    seen = terminal.expect("Answer complete, 7 tokens")
    terminal.prompt()
    assert terminal.finish() == 0
    assert "Asking test-model of local.\n" in seen
    assert "Reasoning: Thinking\n" in seen
    assert "Answer: Hello there\n\nSecond line.\n" in seen
    # the status, once, as the issue words it: "Answer complete, 362 tokens, 98 tokens per second"
    assert re.search(r"\nAnswer complete, 7 tokens, [1-9]\d* tokens per second\.\n", terminal.text), terminal.text
    output = terminal.output
    assert control_characters(output) == []
    assert carriage_returns(output) == 0  # nothing is drawn over: each line only ever grows, then ends
    for once in ("Asking test-model", "Reasoning:", "Answer:", "Answer complete"):
        assert terminal.text.count(once) == 1, once
    assert llm_server.requests[-1].json["messages"][-1] == {"role": "user", "content": "Say hello"}
    center = Center.open(plain_home)
    try:
        [summary] = center.dialog_summaries()
        dialog = center.get_dialog(summary.id)
        assert dialog is not None
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT]
        assert dialog.messages[-1].content == "Hello there\n\nSecond line."
    finally:
        center.close()


def test_a_failure_and_the_next_start_are_one_line_each(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.queue(error_reply(401, "Invalid API key"))
    terminal = start_plain()
    terminal.prompt()
    terminal.send("hello")
    failed = terminal.expect("\n> ")
    assert [line for line in failed.splitlines() if line.startswith("Failed:")] == [
        next(line for line in failed.splitlines() if line.startswith("Failed:"))
    ]
    assert "Invalid API key" in failed
    assert terminal.finish() == 0
    # the next start continues the same dialog, and says so in one line
    llm_server.queue(openai_stream(["again"]))
    again = start_plain()
    opening = again.prompt()
    assert "Continuing 'hello', 1 message" in opening
    again.send("/history")
    assert "1. You: hello" in again.prompt()
    assert again.finish() == 0
    assert "Traceback" not in terminal.text + again.text


def test_ctrl_c_cancels_an_answer_and_keeps_what_arrived(start_plain: Start, llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["First words ", *["more "] * 200], delay_between=0.05))
    terminal = start_plain()
    terminal.prompt()
    terminal.send("a long answer please")
    terminal.expect("First words")
    terminal.type(b"\x03")
    seen = terminal.expect("Cancelled; the partial answer is kept.")
    assert "Cancelling…" in seen
    terminal.prompt()
    terminal.send("/history")
    assert "2. Answer (interrupted): First words" in terminal.prompt()
    assert terminal.finish() == 0
    assert control_characters(terminal.output) == []


def test_without_a_terminal_the_plain_mode_is_chosen_by_itself(
    tmp_path: Path, llm_server: LLMServer, plain_home: Path
) -> None:
    """A pipe is no terminal: `visindigo` alone reads lines from stdin and writes the transcript (no --plain)."""
    import subprocess
    import sys

    from tests.plain.conftest import plain_env
    from tests.plain.terminal import ROOT

    llm_server.queue(openai_stream(["piped ", "answer"]))
    done = subprocess.run(
        [sys.executable, "-m", "visindigo"], input="hello from a pipe\n", capture_output=True, text=True,
        env=plain_env(plain_home), cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "> hello from a pipe\n" in done.stdout  # the line read is written after its prompt
    assert "Answer: piped answer\n" in done.stdout
    assert "\x1b" not in done.stdout + done.stderr


def test_lines_piped_into_a_terminal_choose_the_plain_mode(
    llm_server: LLMServer, plain_home: Path, work_dir: Path
) -> None:
    """`echo question | visindigo`: stdout is a terminal but stdin is not, so the app could read no key (it
    used to start and stop at once with status 129); the lines are read as lines and answered on the terminal."""
    import os
    import select
    import subprocess
    import sys
    import time

    from tests.plain.conftest import plain_env
    from tests.plain.terminal import TIMEOUT

    llm_server.queue(openai_stream(["piped ", "in"]))
    master, slave = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "visindigo"], stdin=subprocess.PIPE, stdout=slave, stderr=slave,
        env=plain_env(plain_home), cwd=work_dir,
    )  # fmt: skip
    os.close(slave)
    assert process.stdin is not None
    process.stdin.write(b"hello from a pipe\n")
    process.stdin.close()
    output = bytearray()
    deadline = time.monotonic() + TIMEOUT
    while (left := deadline - time.monotonic()) > 0 and select.select([master], [], [], left)[0]:
        try:
            data = os.read(master, 65536)
        except OSError:  # the program left: the pty is closed
            break
        if not data:
            break
        output += data
    os.close(master)
    try:
        status = process.wait(5)
    finally:
        process.kill()
    assert status == 0, output.decode(errors="replace")[-500:]
    text = output.decode(errors="replace")
    assert "Visindigo, plain mode." in text and "> hello from a pipe\r\n" in text
    assert "Answer: piped in\r\n" in text
    assert control_characters(bytes(output)) == []


def test_term_dumb_chooses_the_plain_mode(start_plain: Start, llm_server: LLMServer, plain_home: Path) -> None:
    from tests.plain.conftest import plain_env
    from tests.plain.terminal import PlainTerminal

    llm_server.queue(openai_stream(["dumb ", "but ", "fine"]))
    terminal = PlainTerminal([], plain_env(plain_home, term="dumb"))
    try:
        assert "Visindigo, plain mode." in terminal.prompt()
        terminal.send("hi")
        terminal.expect("Answer: dumb but fine\n")
        terminal.prompt()
        terminal.send("/help")
        shown = terminal.prompt()  # no readline here, so no tab: the help does not promise it
        assert "\nA unique beginning is enough (/reg is /regenerate)." in shown and "Tab" not in shown
        assert terminal.finish() == 0
        assert control_characters(terminal.output) == []
    finally:
        terminal.close()


def test_sigterm_leaves_as_ctrl_d_does(start_plain: Start, llm_server: LLMServer, plain_home: Path) -> None:
    import signal

    llm_server.queue(openai_stream(["kept"]))
    terminal = start_plain()
    terminal.prompt()
    terminal.send("keep this")
    terminal.expect("Answer complete")
    terminal.prompt()
    terminal.process.send_signal(signal.SIGTERM)
    assert terminal.wait() == 128 + signal.SIGTERM
    assert "Traceback" not in terminal.text
    center = Center.open(plain_home)  # the store was closed: it opens again, the answer in it
    try:
        [summary] = center.dialog_summaries()
        assert summary.message_count == 2
    finally:
        center.close()


#: tgkill(2), the system call that signals one thread of a process, by machine.
_TGKILL = {"x86_64": 234, "aarch64": 131}


def test_sigterm_delivered_to_another_thread_still_leaves(start_plain: Start, llm_server: LLMServer) -> None:
    """The kernel may hand a process's SIGTERM to any of its threads; Python's handler runs only in the main
    thread, which sits in readline's wait for a key and is not woken by a signal another thread took. Here the
    signal goes to a thread that is not the main one, on purpose: the program must still leave at once."""
    import ctypes
    import os
    import platform
    import signal

    import pytest

    if platform.system() != "Linux" or platform.machine() not in _TGKILL:
        pytest.skip("tgkill is a Linux system call")
    terminal = start_plain()
    terminal.prompt()
    pid = terminal.process.pid
    others = sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid)
    assert others, "the engine runs on a thread of its own"
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.syscall(_TGKILL[platform.machine()], pid, others[0], signal.SIGTERM) == 0, ctypes.get_errno()
    assert terminal.wait() == 128 + signal.SIGTERM
    assert "Traceback" not in terminal.text


def _blocked_signals(pid: int, tid: int) -> int:
    with open(f"/proc/{pid}/task/{tid}/status") as status:
        for line in status:
            if line.startswith("SigBlk:"):
                return int(line.split()[1], 16)
    raise AssertionError("no SigBlk line")


def test_ctrl_c_goes_to_the_main_thread_whichever_thread_runs(start_plain: Start, llm_server: LLMServer) -> None:
    """ctrl+c is a SIGINT for the whole process, which the kernel hands to any thread not blocking it; one taken
    by the engine's thread wakes nobody (seen: a form's ctrl+c unanswered for 30 s under load). Every thread but
    the main one blocks it, so the kernel always gives it to the main thread's wait."""
    import os
    import platform
    import signal

    import pytest

    if platform.system() != "Linux":
        pytest.skip("reads /proc")
    llm_server.queue(openai_stream(["an answer, so the engine's executor threads exist too"]))
    terminal = start_plain()
    terminal.prompt()
    terminal.send("hello")
    terminal.expect("Answer complete")
    terminal.prompt()
    pid = terminal.process.pid
    tids = sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task"))
    others = [tid for tid in tids if tid != pid]
    assert others, "the engine runs on a thread of its own"
    sigint = 1 << (signal.SIGINT - 1)
    assert not _blocked_signals(pid, pid) & sigint
    assert all(_blocked_signals(pid, tid) & sigint for tid in others), [hex(_blocked_signals(pid, t)) for t in others]
    terminal.type(b"/template Tr\t\r")
    terminal.expect("days [3]: ")
    terminal.type(b"\x03")
    assert "The template was not used." in terminal.prompt()
    assert terminal.finish() == 0
