"""Issue 11 §5: a 5 MB reply keeps the app answering keys and its memory within a small multiple of the text.

Before the bounds, keys echoed 5–8 s late while such a reply streamed and the app's memory peaked over 500 MB.
The real app runs in a pseudo-terminal against the loopback server, its screen read through a terminal
emulator; a word is pasted into the composer again and again while the reply streams, and the time until it is
on the screen is taken. The bounds here are generous for a loaded 2-core machine (the README's figures, from
bench/tui_bounds.py, are 78 ms median and under 100 MB).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from tests.llm_server import LLMServer, openai_stream
from tests.tui.platform.test_hostile_terminal import EmulatedTerminal
from tests.tui.platform.test_terminal_gone import make_home

SIZE = 5_000_000
PIECE = 1_000
#: The median paste-to-screen time allowed while it streams (the target on a quiet machine is 100 ms).
MEDIAN_LATENCY = 1.0
#: Peak resident memory allowed, in MB: a small multiple of the 5 MB reply over the app's own ~60 MB.
PEAK_MB = 300


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def probe(terminal: EmulatedTerminal, number: int) -> float:
    """Paste a word; seconds until it is on the screen. Then delete it and wait until it is gone."""
    word = f"PROBE{number:03d}X"
    sent = time.monotonic()
    terminal.type(f"\x1b[200~{word}\x1b[201~".encode())
    terminal.wait_for(word, timeout=120)
    seen = time.monotonic() - sent
    terminal.type(b"\x7f" * len(word))
    deadline = time.monotonic() + 60
    while word in terminal.text() and time.monotonic() < deadline:
        terminal.pump(0.05)
    return seen


def test_keys_answer_and_memory_stays_bounded_while_a_5_mb_reply_streams(tmp_path: Path, llm_server: LLMServer) -> None:
    paragraph = ("The quick brown fox jumps over the lazy dog, and the store keeps every branch. " * 12)[: PIECE - 2]
    pieces = [paragraph + "\n\n" for _ in range(SIZE // PIECE)]
    llm_server.queue(openai_stream([*pieces, "BIGREPLYEND"], delay_between=0.002))
    home = make_home(tmp_path, llm_server)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    env.update(TERM="xterm-256color", VISINDIGO_HOME=str(home))
    terminal = EmulatedTerminal([sys.executable, "-m", "visindigo"], env)
    try:
        terminal.wait_for("Keys", timeout=60)
        terminal.type(b"go\r")
        terminal.wait_for("quick brown fox", timeout=60)
        latencies = []
        # the reply's last word, on screen once it arrived: a folded reply shows its end (issue 25 §13), with the
        # fold line above it in the middle (tests/tui/chat/test_stream_tail.py checks the fold itself)
        terminal.watch("BIGREPLYEND")
        while not terminal.seen["BIGREPLYEND"] and len(latencies) < 40:
            latencies.append(probe(terminal, len(latencies)))
            terminal.pump(0.3)
        terminal.wait_for("BIGREPLYEND", timeout=180)
        peak = peak_rss_mb(terminal.process.pid)
    finally:
        terminal.close()
    print(f"{len(latencies)} pastes, median {statistics.median(latencies) * 1000:.0f} ms, peak {peak:.0f} MB")
    assert len(latencies) >= 3, "the reply was over before keys could be timed"
    assert statistics.median(latencies) < MEDIAN_LATENCY, latencies
    assert peak < PEAK_MB, f"peak memory {peak:.0f} MB"
