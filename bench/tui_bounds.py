"""The app against hostile sizes (issue 11 §5): a 5 MB reply, and one reply asking for 2,000 tool calls.

The real app runs in a pseudo-terminal (the machinery of bench/tui_stream.py) against the loopback LLM server.

  5 MB reply   5 MB of Markdown streamed as 5,000 chunks of 1,000 characters. While it streams, a word is
               pasted into the composer every half second and the time until it is on screen is taken (the
               key latency); then the time until the folded reply is drawn, and the app's peak memory.
  2,000 calls  one reply with 2,000 tool calls (over the cap, which runs 32 by default) and a final answer:
               the time until that answer is on screen, the peak memory, and the time ctrl+q takes to quit.

    .venv/bin/python bench/tui_bounds.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tui_stream import Terminal, app_argv, app_env, make_home  # noqa: E402

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_chunk, openai_stream, sse_reply  # noqa: E402

BIG = 5_000_000
PIECE = 1_000


def peak_rss_mb(terminal: Terminal) -> float:
    for line in Path(f"/proc/{terminal.process.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def ready(home: Path) -> Terminal:
    terminal = Terminal.spawn(app_argv(None), app_env(home))
    terminal.wait_for("enter sends", timeout=60)
    time.sleep(0.5)
    return terminal


def big_reply() -> Reply:
    paragraph = ("The quick brown fox jumps over the lazy dog, and the store keeps every branch. " * 12)[: PIECE - 2]
    pieces = [paragraph + "\n\n" for _ in range(BIG // PIECE)]
    reply = openai_stream(pieces, usage=(10, len(pieces)))
    reply.delay_between = 0.002
    return reply


def start_run(server: LLMServer, home: Path, reply: Callable[[int], Reply]) -> tuple[Terminal, float]:
    """The app, ready, with "go" sent; `reply(n)` answers the n-th request. Returns it and when it first asked."""
    asked: list[float] = []

    def respond(request: RecordedRequest) -> Reply:
        asked.append(time.perf_counter())
        return reply(len(asked))

    server.responder = respond
    terminal = ready(home)
    terminal.type(b"go\r")
    while not asked:
        time.sleep(0.01)
    return terminal, asked[0]


def measure_big(server: LLMServer, home: Path) -> None:
    terminal, start = start_run(server, home, lambda _: big_reply())
    try:
        latencies = []
        number = 0
        while not _folded(terminal, start):  # the latency while it streams
            number += 1
            word = f"PROBE{number:03d}X"
            sent = time.perf_counter()
            terminal.type(f"\x1b[200~{word}\x1b[201~".encode())
            seen = terminal.wait_for(word, timeout=60, after=sent)
            latencies.append(seen - sent)
            terminal.type(b"\x7f" * len(word))
            time.sleep(0.5)
        done = terminal.wait_for("characters folded", timeout=120, after=start)
        peak = peak_rss_mb(terminal)
    finally:
        terminal.close()
        server.responder = None
    print(f"5 MB reply ({BIG // PIECE:,} chunks of {PIECE:,} characters)")
    print(f"  folded reply on screen after : {done - start:6.2f} s")
    print(f"  key latency while streaming  : median {statistics.median(latencies) * 1000:5.0f} ms, "
          f"max {max(latencies) * 1000:5.0f} ms ({len(latencies)} pastes)")  # fmt: skip
    print(f"  peak memory of the app       : {peak:6.0f} MB")


def _folded(terminal: Terminal, start: float) -> bool:
    try:
        terminal.wait_for("characters folded", timeout=0.01, after=start)
    except TimeoutError:
        return False
    return True


def many_calls_reply(count: int) -> Reply:
    events: list[dict[str, object] | str] = [openai_chunk({"role": "assistant", "content": ""})]
    calls = [
        {"index": i, "id": f"call_{i}", "type": "function",
         "function": {"name": "lookup", "arguments": json.dumps({"n": i})}}
        for i in range(count)
    ]  # fmt: skip
    for first in range(0, count, 100):
        events.append(openai_chunk({"tool_calls": calls[first : first + 100]}))
    events += [openai_chunk({}, "tool_calls"), "data: [DONE]\n\n"]
    return sse_reply(events)


def measure_calls(server: LLMServer, home: Path, count: int = 2000) -> None:
    terminal, start = start_run(
        server, home, lambda n: many_calls_reply(count) if n == 1 else openai_stream(["All done CALLSDONE"])
    )
    try:
        done = terminal.wait_for("CALLSDONE", timeout=600, after=start)
        quiet = terminal.quiet_after(done, quiet=1.0, timeout=120)
        peak = peak_rss_mb(terminal)
        before_quit = time.perf_counter()
        terminal.type(b"\x11")
        terminal.process.wait(timeout=120)
        quit_time = time.perf_counter() - before_quit
    finally:
        if terminal.process.poll() is None:
            terminal.close()
        server.responder = None
    print(f"{count:,} tool calls in one reply")
    print(f"  final answer on screen after : {done - start:6.2f} s (drawing done after {quiet - start:.2f} s)")
    print(f"  peak memory of the app       : {peak:6.0f} MB")
    print(f"  ctrl+q to exit               : {quit_time:6.2f} s")


def main() -> None:
    with LLMServer() as server:
        home = make_home(server, dialogs=5, big=0)
        measure_big(server, home)
        measure_calls(server, home)


if __name__ == "__main__":
    main()
