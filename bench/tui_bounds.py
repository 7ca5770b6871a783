"""The app against hostile sizes (issue 11 §5): a 5 MB reply, and one reply asking for 2,000 tool calls.

The real app runs in a pseudo-terminal (the machinery of bench/tui_stream.py) against the loopback LLM server.

  5 MB reply   5 MB of Markdown streamed as 5,000 chunks of 1,000 characters. While it streams, a word is
               pasted into the composer every half second and the time until it is on screen is taken (the
               key latency); then the time until the folded reply is drawn, and the app's peak memory.
  reasoning    5 MB of reasoning (then a short answer) in the reasoning drawer (open at 120 columns): the key
               latency while it streams and once it is done.
  2,000 calls  one reply with 2,000 tool calls (over the cap, which runs 32 by default) and a final answer:
               the time until that answer is on screen, the peak memory, and the time ctrl+q takes to quit.

    .venv/bin/python bench/tui_bounds.py [--only reply|reasoning|calls ...]
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

from tui_stream import COLUMNS, ROWS, Terminal, app_argv, app_env, make_home  # noqa: E402

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
        screen = Screen(terminal)
        while not _folded(terminal, start):  # the latency while it streams
            number += 1
            latencies.append(probe(screen, number))
            time.sleep(0.5)
        done = terminal.wait_for("characters folded", timeout=120, after=start)
        terminal.quiet_after(done, quiet=1.0, timeout=120)
        after = []
        for _ in range(10):  # once it is done, folded
            number += 1
            after.append(probe(screen, number))
            time.sleep(0.3)
        # All of it: the messages (ctrl+o, the cursor on the last one), enter; once the fold line is gone, back to
        # the composer (ctrl+l) with all 5 MB on screen.
        terminal.type(b"\x0f")
        time.sleep(0.5)
        unfold_sent = time.perf_counter()
        terminal.type(b"\r")
        while screen.shows("characters folded"):
            time.sleep(0.005)
        unfolded = time.perf_counter() - unfold_sent
        time.sleep(2.0)  # a user reading it, then going back to typing (ctrl+l; a paste read with it goes to the
        terminal.type(b"\x0c")  # composer too, tests/tui/main/test_focus_race.py)
        time.sleep(0.5)
        unfolding = []
        for _ in range(10):
            number += 1
            unfolding.append(probe(screen, number, timeout=30))
            time.sleep(0.2)
        peak = peak_rss_mb(terminal)
    finally:
        terminal.close()
        server.responder = None
    print(f"5 MB reply ({BIG // PIECE:,} chunks of {PIECE:,} characters)")
    print(f"  folded reply on screen after : {done - start:6.2f} s")
    print(latency_line("key latency while streaming", latencies))
    print(latency_line("key latency once done", after))
    print(f"  enter to all of it on screen : {unfolded:6.2f} s")
    print(latency_line("key latency, all of it shown", unfolding))
    print(f"  peak memory of the app       : {peak:6.0f} MB")


class Screen:
    """What the terminal shows, from the app's output fed to a terminal emulator (pyte): the output stage sends
    only the cells that changed, so a word typed over similar text is not in the bytes whole."""

    def __init__(self, terminal: Terminal) -> None:
        import pyte

        self.terminal = terminal
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.fed = 0

    def shows(self, needle: str) -> bool:
        with self.terminal._lock:
            fresh = self.terminal.chunks[self.fed :]
            self.fed = len(self.terminal.chunks)
        for _, data in fresh:
            self.stream.feed(data)
        return any(needle in line for line in self.screen.display)

    def wait_for(self, needle: str, timeout: float) -> float:
        deadline = time.perf_counter() + timeout
        while not self.shows(needle):
            if time.perf_counter() > deadline:
                shown = "\n".join(self.screen.display)
                raise TimeoutError(f"{needle!r} was not on the screen within {timeout:.0f} s; it showed:\n{shown}")
            time.sleep(0.005)
        return time.perf_counter()


def probe(screen: Screen, number: int, timeout: float = 120) -> float:
    """Paste a word into the composer and return the seconds until it is on the screen; delete it again and wait
    until it is gone (so that the next word is typed into an empty composer)."""
    word = f"PROBE{number:03d}X"
    sent = time.perf_counter()
    screen.terminal.type(f"\x1b[200~{word}\x1b[201~".encode())
    seen = screen.wait_for(word, timeout=timeout)
    screen.terminal.type(b"\x7f" * len(word))
    deadline = time.perf_counter() + 120
    while screen.shows(word) and time.perf_counter() < deadline:
        time.sleep(0.005)
    return seen - sent


def latency_line(name: str, latencies: list[float]) -> str:
    return (f"  {name:<29}: median {statistics.median(latencies) * 1000:5.0f} ms, "
            f"max {max(latencies) * 1000:5.0f} ms ({len(latencies)} pastes)")  # fmt: skip


def big_reasoning_reply() -> Reply:
    paragraph = ("Let me think about the fox, the dog and the branches of the store once more. " * 12)[: PIECE - 2]
    pieces = [paragraph + "\n\n" for _ in range(BIG // PIECE)]
    reply = openai_stream(["The answer, after all that thought: REASONDONE"], reasoning=pieces, usage=(10, 10))
    reply.delay_between = 0.002
    return reply


def measure_reasoning(server: LLMServer, home: Path) -> None:
    """A 5 MB reasoning in the reasoning drawer (open at 120 columns): key latency while it streams and once done."""
    terminal = ready(home)
    try:
        terminal.wait_for("No reasoning", timeout=30)  # the drawer is open
        asked: list[float] = []

        def respond(request: RecordedRequest) -> Reply:
            asked.append(time.perf_counter())
            return big_reasoning_reply()

        server.responder = respond
        terminal.type(b"think\r")
        while not asked:
            time.sleep(0.01)
        start = asked[0]
        streaming: list[float] = []
        number = 0
        screen = Screen(terminal)
        while not _seen(terminal, "REASONDONE", start):
            number += 1
            streaming.append(probe(screen, number))
            time.sleep(0.5)
        done = terminal.wait_for("REASONDONE", timeout=300, after=start)
        terminal.quiet_after(done, quiet=1.0, timeout=120)
        after: list[float] = []
        for _ in range(10):
            number += 1
            after.append(probe(screen, number))
            time.sleep(0.3)
        peak = peak_rss_mb(terminal)
        folded = screen.shows("alt+g")  # the fold line under the drawer's reasoning
    finally:
        terminal.close()
        server.responder = None
    shown = " (shown folded)" if folded else ""
    print(f"5 MB reasoning in the drawer{shown} ({BIG // PIECE:,} chunks of {PIECE:,} characters)")
    print(f"  answer on screen after       : {done - start:6.2f} s")
    print(latency_line("key latency while streaming", streaming))
    print(latency_line("key latency once done", after))
    print(f"  peak memory of the app       : {peak:6.0f} MB")


def _seen(terminal: Terminal, needle: str, start: float) -> bool:
    try:
        terminal.wait_for(needle, timeout=0.01, after=start)
    except TimeoutError:
        return False
    return True


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
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("reply", "reasoning", "calls"), action="append", help="run only these")
    chosen = parser.parse_args().only or ["reply", "reasoning", "calls"]
    with LLMServer() as server:
        home = make_home(server, dialogs=5, big=0)
        if "reply" in chosen:
            measure_big(server, home)
        if "reasoning" in chosen:
            measure_reasoning(server, home)
        if "calls" in chosen:
            measure_calls(server, home)


if __name__ == "__main__":
    main()
