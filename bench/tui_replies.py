"""The real app in a pseudo-terminal, reply after reply and on a long dialog (issue 14's table, with tui_stream).

The machinery (the pty, the loopback server, the home with 500 stored dialogs and one of 2,000 messages) is
bench/tui_stream.py's; `python bench/tui_stream.py` runs these with the rest and prints the whole table.

  first reply   Enter → first token on screen for the first reply after start, and for three later ones in the
                same app (each in a new dialog, ctrl+n). Target: first ≤ 1.5× the median later one.
  final render  1,000 tokens at 200 tokens/s ending in a code block: the last streamed frame → the frame showing
                the code block coloured (the final render), replayed in a terminal emulator. Target ≤ 100 ms.
  memory        100 replies of 500 tokens (at 2,000 tokens/s) in one dialog: the app's RSS after each. Target:
                < 120 MB, flat after the first screenful.
  long dialog   the 2,000-message dialog, found by the search box: Enter on the hit → its last message
                painted (target < 250 ms), then Home in the message list until message 1 is on screen:
                presses, seconds, RSS (target < 1 s, < 150 MB, one press).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tui_stream import (
    COLUMNS,
    END_MARK,
    ROWS,
    EmulatedScreen,
    Row,
    Terminal,
    _tokens,
    code_block,
    new_dialog_with_draft,
    ordinary_reply_tokens,
    ready_terminal,
    streaming_reply,
)

from tests.llm_server import LLMServer, RecordedRequest, Reply


def rss_mb(terminal: Terminal) -> float:
    for line in Path(f"/proc/{terminal.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- the first reply ---------------------------------------------------------------------------------------------

#: The first word of each reply: no two share a letter at the same place, so the output stage (which writes only
#: the cells that changed) writes each one whole.
FIRST_WORDS = ("Alphawords", "Bravotimes", "Charliexyz", "Deltaquick")


def measure_first_reply(server: LLMServer, home: Path, fps: float | None, runs: int) -> list[Row]:
    firsts: list[float] = []
    laters: list[float] = []
    ratios: list[float] = []
    asked_first: list[float] = []
    asked_later: list[float] = []
    for _ in range(runs):
        terminal = ready_terminal(home, fps)
        screen = EmulatedScreen(terminal)
        try:
            times = []
            asked: list[float] = []
            for word in FIRST_WORDS:
                tokens = [f"{word} ", *ordinary_reply_tokens(200)]

                def respond(request: RecordedRequest, tokens: list[str] = tokens, asked: list[float] = asked) -> Reply:
                    asked.append(time.perf_counter())
                    return streaming_reply(tokens, 2000)

                server.responder = respond
                new_dialog_with_draft(terminal, screen)
                pressed = time.perf_counter()
                terminal.type(b"\r")
                times.append(screen.wait_for(word, timeout=30, after=pressed) - pressed)
                (asked_later if times[1:] else asked_first).append(asked[-1] - pressed)
                screen.wait_for(END_MARK, timeout=30, after=pressed)
                terminal.quiet_after(time.perf_counter(), quiet=1.0)
        finally:
            terminal.close()
            server.responder = None
        firsts.append(times[0])
        laters.extend(times[1:])
        ratios.append(times[0] / statistics.median(times[1:]))
    later = statistics.median(laters)
    print(f"first reply after start (Enter → first token on screen; {runs} starts, 3 later replies each)")
    print(f"  first reply  : {statistics.median(firsts) * 1000:6.0f} ms   (runs {_ms(firsts)})")
    print(f"  later replies: {later * 1000:6.0f} ms   (replies {_ms(laters)})")
    print(f"  ratio        : {statistics.median(firsts) / later:6.2f}   (target <= 1.5; per start "
          f"{min(ratios):.2f}–{max(ratios):.2f})")
    print(f"  of which Enter → the server got the request: first {statistics.median(asked_first) * 1000:.0f} ms "
          f"(runs {_ms(asked_first)}), later {statistics.median(asked_later) * 1000:.0f} ms ({_ms(asked_later)})")
    return [
        Row("first reply: Enter → first token on screen", [t * 1000 for t in firsts], "ms", "≤ 1.5× a later reply",
            floor=later * 1000),
        Row("a later reply: Enter → first token on screen", [t * 1000 for t in laters], "ms", "(the floor)"),
    ]


def _ms(seconds: list[float]) -> str:
    return f"{min(seconds) * 1000:.0f}–{max(seconds) * 1000:.0f} ms"


# --- the final render --------------------------------------------------------------------------------------------

CODE_PROBE = "return value"
#: Tokens per second of the final-render reply: several frames a second, as an everyday reply.
RENDER_RATE = 200


def final_render_tokens() -> list[str]:
    """An ordinary reply whose last block is a code block, so the final render (its colours) is on screen."""
    return [*ordinary_reply_tokens(1000)[:-1], *_tokens("\n\n" + code_block(99) + f"\n\n{END_MARK}\n")]


def final_render_gap(terminal: Terminal, after: float, gap: float = 0.02) -> tuple[float, bool]:
    """(seconds from the last streamed frame to the frame that showed the code block coloured, whether that last
    streamed frame already showed the last token), replaying the output in a terminal emulator from `after` on.

    A frame is a burst of output (writes less than `gap` apart). The final render is the first frame in which the
    code block's last line is coloured (the keyword `return` in another colour than the name after it); the last
    streamed frame is the one before it.
    """
    import pyte

    screen = pyte.Screen(COLUMNS, ROWS)
    stream = pyte.ByteStream(screen)
    with terminal._lock:
        chunks = list(terminal.chunks)
    previous_end = last_seen = after
    token_shown = False
    for when, data in chunks:
        if when >= after and when - last_seen >= gap:  # a new frame: the one before ended at last_seen
            previous_end = last_seen
            token_shown = END_MARK in "\n".join(screen.display)
        stream.feed(data)
        if when < after:
            continue
        last_seen = when
        for y in range(ROWS):
            row = screen.buffer[y]
            text = "".join(row[x].data for x in range(COLUMNS))
            column = text.find(CODE_PROBE)
            if column >= 0 and row[column].fg != row[column + len("return ")].fg:
                return when - previous_end, token_shown
    raise AssertionError("the code block never showed coloured:\n" + "\n".join(screen.display))


def measure_final_render(server: LLMServer, home: Path, fps: float | None, runs: int) -> list[Row]:
    tokens = final_render_tokens()
    gaps: list[float] = []
    shown_before: list[bool] = []
    for _ in range(runs):
        server.responder = lambda request: streaming_reply(tokens, RENDER_RATE)
        terminal = ready_terminal(home, fps)
        try:
            new_dialog_with_draft(terminal, EmulatedScreen(terminal))  # no coloured code of an earlier run shown
            pressed = time.perf_counter()
            terminal.type(b"\r")
            last = EmulatedScreen(terminal).wait_for(END_MARK, timeout=60, after=pressed)
            terminal.quiet_after(last, quiet=2.0)
            seconds, token_shown = final_render_gap(terminal, pressed)
            gaps.append(seconds)
            shown_before.append(token_shown)
        finally:
            terminal.close()
            server.responder = None
    print(f"final render ({len(tokens):,} tokens at {RENDER_RATE} tokens/s ending in a code block, median of {runs})")
    print(f"  last streamed frame → code block coloured: {statistics.median(gaps) * 1000:.0f} ms   "
          f"(runs {_ms(gaps)}; target <= 100 ms); the last streamed frame showed the last token in "
          f"{sum(shown_before)} of {runs} runs")
    return [Row("last streamed frame → final render shown", [g * 1000 for g in gaps], "ms", "≤ 100 ms")]


# --- memory over 100 replies -------------------------------------------------------------------------------------


def measure_memory(server: LLMServer, home: Path, fps: float | None, replies: int) -> list[Row]:
    tokens = ordinary_reply_tokens(500)
    asked: list[float] = []

    def respond(request: RecordedRequest) -> Reply:
        asked.append(time.perf_counter())
        return streaming_reply(tokens, 2000)

    server.responder = respond
    terminal = ready_terminal(home, fps)
    rss: list[float] = []
    spent: list[float] = []
    try:
        terminal.type(b"\x0e")  # ctrl+n: one new dialog for all the replies
        time.sleep(0.3)
        start_rss = rss_mb(terminal)
        for number in range(replies):
            terminal.type(b"go")
            time.sleep(0.05)
            pressed = time.perf_counter()
            count = len(asked)
            terminal.type(b"\r")
            deadline = time.perf_counter() + 60
            while len(asked) == count and time.perf_counter() < deadline:
                time.sleep(0.01)
            done = terminal.quiet_after(asked[-1] + len(tokens) / 2000, quiet=0.6, timeout=120)
            spent.append(done - pressed)
            rss.append(rss_mb(terminal))
            if number + 1 in (1, 10, 25, 50, 75, 100):
                print(f"  after reply {number + 1:3}: {rss[-1]:6.0f} MB RSS, that reply took {spent[-1]:.2f} s",
                      flush=True)
    finally:
        terminal.close()
        server.responder = None
    tail = rss[len(rss) // 2 :]
    per_reply = (tail[-1] - tail[0]) / max(1, len(tail) - 1)
    print(f"memory over {replies} replies of {len(tokens)} tokens in one dialog: {start_rss:.0f} MB at the start, "
          f"{rss[-1]:.0f} MB after, {per_reply:+.2f} MB per reply over the second half (target < 120 MB, flat)")
    return [
        Row(f"RSS after {replies} replies of 500 tokens in one dialog", rss[-10:], "MB",
            "< 120 MB, flat after the first screenful"),
        Row("  growth per reply over the second half", [per_reply], "MB", "≈ 0", digits=2),
        Row("  time per reply, last 10 (Enter → quiet)", spent[-10:], "s", "flat", digits=2),
    ]


# --- the 2,000-message dialog ------------------------------------------------------------------------------------


def measure_long_dialog(home: Path, fps: float | None, runs: int, home_runs: int = 1) -> list[Row]:
    opens: list[float] = []
    home_times: list[float] = []
    presses: list[float] = []
    home_rss: list[float] = []
    for run in range(runs):
        terminal = ready_terminal(home, fps)
        screen = EmulatedScreen(terminal)
        try:
            # Each key waits for the app to have drawn its effect (and a second at least): on a loaded machine a
            # key that arrives before the focus has moved goes to the wrong widget.
            for keys in (b"\x0e", b"\x06", b"Last message", b"\t"):
                # ctrl+n: an empty pane (the app resumed the long dialog, the newest); ctrl+f: the search box;
                # the full-text search finds the dialog's last message (only); tab: the tree, on the one hit
                time.sleep(1.0)
                terminal.type(keys)
                terminal.quiet_after(time.perf_counter(), quiet=1.0)
            if END_MARK in screen.text():
                raise AssertionError("the long dialog is on screen before it was opened:\n" + screen.text())
            pressed = time.perf_counter()
            terminal.type(b"\r")
            shown = screen.wait_for(END_MARK + "LONG", timeout=30, after=pressed)
            opens.append(shown - pressed)
            if run >= home_runs:
                continue
            terminal.quiet_after(shown, quiet=1.0)
            terminal.type(b"\x0f")  # ctrl+o: the message list
            time.sleep(0.3)
            count, seconds, reached = _press_home_until(terminal, screen, "Message 0:")
            home_times.append(seconds)
            presses.append(count)
            home_rss.append(rss_mb(terminal))
            if not reached:
                print(f"  (Home did not reach message 1 in {seconds:.0f} s and {count} presses: the screen's first "
                      f"message is number {_top_message(screen.text())})")
        finally:
            terminal.close()
    print(f"a 2,000-message dialog (median of {runs})")
    print(f"  Enter in the tree → last message painted: {statistics.median(opens) * 1000:.0f} ms "
          f"(runs {_ms(opens)}; target < 250 ms)")
    print(f"  Home until message 1 is on screen       : {statistics.median(home_times):.1f} s, "
          f"{statistics.median(presses):.0f} presses, {statistics.median(home_rss):.0f} MB RSS "
          f"(target < 1 s, one press, < 150 MB)")
    return [
        Row("opening a 2,000-message dialog, first paint", [t * 1000 for t in opens], "ms", "< 250 ms"),
        Row("reaching its top: Home until message 1 shows", home_times, "s", "< 1 s", digits=1),
        Row("  Home presses needed", presses, "", "1"),
        Row("  RSS at the top", home_rss, "MB", "< 150 MB"),
    ]


def _press_home_until(
    terminal: Terminal, screen: EmulatedScreen, needle: str, limit: float = 150.0
) -> tuple[int, float, bool]:
    """Press Home and wait up to 10 s for `needle` to be on screen, and again while it is not: (presses, seconds
    from the first press to the output that showed it, whether it did within `limit` seconds)."""
    started = time.perf_counter()
    presses = 0
    while time.perf_counter() - started < limit:
        before = time.perf_counter()
        terminal.type(b"\x1b[H")  # Home
        presses += 1
        try:
            return presses, screen.wait_for(needle, timeout=10.0, after=before) - started, True
        except TimeoutError:
            continue
    return presses, time.perf_counter() - started, False


def _top_message(text: str) -> str:
    """The number of the first "Message N:" on the screen, for a report of how far Home got."""
    import re

    found = re.search(r"Message (\d+):", text)
    return found.group(1) if found else "?"


STEPS: dict[str, Callable[..., list[Row]]] = {
    "first-reply": measure_first_reply,
    "final-render": measure_final_render,
    "memory": measure_memory,
    "long-dialog": measure_long_dialog,
}
