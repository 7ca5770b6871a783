"""The app ends when its terminal goes away and on SIGTERM, keeping what a crash would keep.

Seen in use: app processes whose tmux pane (their pty) had gone kept running for over an hour, one at 35 % of a
core, and ignored SIGTERM. The real app runs here as `python -m visindigo` on a pseudo-terminal (in a session
of its own, so closing the terminal sends it no SIGHUP: only reading and writing the terminal tell it), with a
reply streaming slowly from the loopback server when the terminal closes or the signal comes.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.llm_server import LLMServer, openai_stream
from tests.tui.platform.test_hostile_terminal import EmulatedTerminal
from visindigo.engine import Center, Role

#: Generous for a loaded machine; the app itself leaves within about a second.
GONE_WITHIN = 20.0
FIRST = "FIRSTWORDS"
LAST = "LASTWORDS"


def make_home(tmp_path: Path, server: LLMServer) -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(textwrap.dedent(f"""
        default_provider = "local"
        [providers.local]
        kind = "openai"
        base_url = "{server.openai_url}"
        default_model = "slow-model"
        [[providers.local.models]]
        id = "slow-model"
        """))  # fmt: skip
    return home


def start_app(home: Path) -> EmulatedTerminal:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    env.update(TERM="xterm-256color", VISINDIGO_HOME=str(home))
    terminal = EmulatedTerminal([sys.executable, "-m", "visindigo"], env)
    terminal.wait_for("Keys", timeout=60)  # the footer: the first frame is up
    return terminal


def wait_gone(terminal: EmulatedTerminal, *, reading: bool = True) -> float:
    """Seconds until the process ended (reading its output meanwhile, unless the terminal is closed)."""
    started = time.monotonic()
    while terminal.process.poll() is None:
        if time.monotonic() - started > GONE_WITHIN:
            terminal.process.kill()
            terminal.process.wait(10)
            raise AssertionError(f"the app was still running {GONE_WITHIN:.0f} s later")
        if reading:
            terminal.pump(0.1)
        else:
            time.sleep(0.05)
    elapsed = time.monotonic() - started
    print(f"gone after {elapsed:.2f} s, code {terminal.process.returncode}")
    return elapsed


def stored_reply(home: Path) -> str:
    center = Center.open(home)
    try:
        [summary] = [s for s in center.dialog_summaries() if s.message_count]
        dialog = center.get_dialog(summary.id)
        assert dialog is not None
        assert [m.role for m in dialog.messages] == [Role.USER, Role.ASSISTANT]
        return dialog.messages[-1].content
    finally:
        center.close()


def test_the_app_ends_when_its_terminal_is_closed(tmp_path: Path, llm_server: LLMServer) -> None:
    terminal = start_app(make_home(tmp_path, llm_server))
    try:
        os.close(terminal.master)  # the window (or tmux pane) is gone
        wait_gone(terminal, reading=False)
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait(10)


@pytest.mark.parametrize("how", ["terminal closed", "SIGTERM", "SIGHUP", "SIGTERM, terminal not read"])
def test_a_reply_streaming_when_the_app_is_ended_is_kept(tmp_path: Path, llm_server: LLMServer, how: str) -> None:
    pieces = [f"{FIRST} "] + [f"word{n} " for n in range(600)] + [LAST]
    llm_server.queue(openai_stream(pieces, delay_between=0.05))  # 30 s of streaming
    home = make_home(tmp_path, llm_server)
    terminal = start_app(home)
    closed = False
    try:
        terminal.type(b"tell me a long story")
        terminal.wait_for("long story", timeout=30)
        terminal.type(b"\r")
        terminal.wait_for(FIRST, timeout=60)
        terminal.wait_for("word20", timeout=60)
        if how == "terminal closed":
            os.close(terminal.master)
            closed = True
        elif how == "SIGTERM, terminal not read":
            # A terminal that stops reading (a stuck tmux client): the app's writes fill the pty and then block
            # its thread; typing makes it redraw the composer for each key.
            for _ in range(150):
                terminal.type(b"more words typed " * 4)
                time.sleep(0.03)
            terminal.process.send_signal(signal.SIGTERM)
        else:
            terminal.process.send_signal(getattr(signal, how))
        wait_gone(terminal, reading=how in ("SIGTERM", "SIGHUP"))
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait(10)
        if not closed:
            os.close(terminal.master)
    kept = stored_reply(home)
    assert kept.startswith(FIRST) and "word20" in kept and LAST not in kept
