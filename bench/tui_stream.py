"""The real app in a pseudo-terminal: start-up, streaming, and opening a long dialog (issue 6 §7).

Every figure is taken from the outside, as a user's terminal (or an SSH link) would see it: the app runs as
`python -m visindigo` in a pty of 120×40 with TERM=xterm-256color, its output is read and counted byte by byte
with timestamps, and its CPU time is read from /proc/<pid>/stat. Replies come from the loopback LLM server of
the tests (tests/llm_server.py) speaking OpenAI chat-completions SSE.

  start-up     process start → first frame, with 500 dialogs stored, of `visindigo` and of `visindigo --demo`,
               against a minimal Textual app that shows one Static (the floor). Target: ratio <= 1.5.
  idle         bytes written and CPU over 10 s in which nothing happens. Target: 0 bytes/s, <= 0.3 % of a core.
  everyday     2,000 tokens at 100 tokens/s of an ordinary reply (headings, paragraphs, 30-line code blocks,
               short lists), timed from the Enter key press (the first reply's deferred imports are part of
               what the user waits for). Targets: <= 15 % of one core; <= 200 bytes written per token. The
               bytes figure is checked in a terminal emulator (pyte): everything written must leave the
               screen the app repaints from scratch afterwards, so a saving cannot come from drawing less.
  fast         4,000 tokens at 2,000 tokens/s. Target: last token within 1.2× the stream's duration.
  open         a 2,000-message dialog, from Enter in the tree to its last message on screen. Target: < 500 ms.

Streams are run `--runs` times and reported as the median with the spread. Run from the repository root:

    .venv/bin/python bench/tui_stream.py [--fps N] [--runs 3] [--only idle --only everyday …]
        [--textual-output] [--cursor-blink]

`--fps` is passed to the app (`visindigo --fps`), so the frame rate/bandwidth trade-off can be measured;
`--textual-output --cursor-blink` measures the app as it was before issue 14 (Textual's own output, the
composer's cursor blinking).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_stream  # noqa: E402

COLUMNS, ROWS = 120, 40
TICKS = os.sysconf("SC_CLK_TCK")
END_MARK = "ZEBRAFINISH"
FLOOR_APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    class Floor(App):
        def compose(self):
            yield Static("FLOOR-READY")

    Floor().run()
    """
)


# --- a terminal ----------------------------------------------------------------------------------------------


@dataclass
class Terminal:
    """A child process on a pty, with everything it writes recorded as (time, bytes)."""

    process: subprocess.Popen[bytes]
    master: int
    started: float
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _text: bytearray = field(default_factory=bytearray)

    @classmethod
    def spawn(cls, argv: list[str], env: dict[str, str]) -> Terminal:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        started = time.perf_counter()
        process = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, cwd=ROOT
        )
        os.close(slave)
        terminal = cls(process, master, started)
        threading.Thread(target=terminal._read, daemon=True).start()
        return terminal

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            now = time.perf_counter()
            with self._lock:
                self.chunks.append((now, data))
                self._text += data

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def wait_for(self, needle: str, timeout: float, after: float = 0.0) -> float:
        """The time `needle` first appeared in output written after `after`; raises on timeout."""
        encoded = needle.encode()
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self._lock:
                found = _first_time(self.chunks, encoded, after)
            if found is not None:
                return found
            time.sleep(0.005)
        shown = self.visible_tail()
        raise TimeoutError(f"{needle!r} did not appear within {timeout:.0f} s; the screen showed:\n{shown}")

    def visible_tail(self, limit: int = 3000) -> str:
        """The end of the output with escape sequences removed, for a failure message."""
        with self._lock:
            text = self._text[-20 * limit :].decode("utf-8", "replace")
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]", " ", text)
        return re.sub(r" {3,}", "  ", text)[-limit:]

    def quiet_after(self, since: float, quiet: float = 1.0, timeout: float = 60.0, small: int | None = None) -> float:
        """The time of the last real drawing before `quiet` seconds without one: the app finished drawing.

        With `--cursor-blink`, writes of at most `small` (400) bytes do not count: the composer's blinking
        cursor redraws one cell twice a second, for as long as the app runs. Without it every write counts
        (the output stage's last frames can be a few bytes).
        """
        small = (400 if CURSOR_BLINK else 0) if small is None else small
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self._lock:
                big = [when for when, data in self.chunks if when >= since and len(data) > small]
            last = big[-1] if big else since
            if time.perf_counter() - last >= quiet:
                return last
            time.sleep(0.05)
        raise TimeoutError("the app never went quiet")

    def bytes_between(self, start: float, end: float) -> int:
        with self._lock:
            return sum(len(data) for when, data in self.chunks if start <= when <= end)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def close(self) -> None:
        try:
            self.type(b"\x11")  # ctrl+q
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def _first_time(chunks: list[tuple[float, bytes]], needle: bytes, after: float) -> float | None:
    """When `needle` was complete in the output (it may straddle reads), counting only output after `after`."""
    window = b""
    for when, data in chunks:
        if when < after:
            continue
        window = window[-len(needle) :] + data
        if needle in window:
            return when
    return None


# --- the home: config, stored dialogs ---------------------------------------------------------------------------


def make_home(server: LLMServer, dialogs: int, big: int, cursor_blink: bool = False) -> Path:
    """A VISINDIGO_HOME whose config points at the loopback server, with `dialogs` dialogs and one of `big`."""
    from visindigo.engine import Center, Message, Role

    home = Path(tempfile.mkdtemp(prefix="visindigo-bench-"))
    (home / "config").mkdir()
    (home / "config" / "config.toml").write_text(
        textwrap.dedent(
            f"""
            default_provider = "bench"

            [providers.bench]
            kind = "openai"
            base_url = "{server.openai_url}"
            api_key_env = "VISINDIGO_BENCH_KEY"
            default_model = "bench-model"

            [[providers.bench.models]]
            id = "bench-model"
            capabilities = ["text"]

            [ui]
            cursor_blink = {"true" if cursor_blink else "false"}
            """
        )
    )
    center = Center.open(home)
    try:
        for number in range(dialogs):
            dialog = center.create_dialog()
            dialog.title = f"Stored dialog {number}"
            for turn in range(2):
                dialog.append_message(Role.USER, f"Question {turn} of dialog {number} about Kyoto temples")
                dialog.append_message(Role.ASSISTANT, f"## Answer {turn}\n\nSome text for dialog {number}.")
        if big:
            dialog = center.create_dialog()
            dialog.title = "The long dialog"
            for number in range(big - 1):
                role = Role.USER if number % 2 == 0 else Role.ASSISTANT
                dialog.append_message(Message(role, f"Message {number}: {paragraph(number, 40)}"))
            dialog.append_message(Message(Role.ASSISTANT, f"Last message {END_MARK}LONG"))
    finally:
        center.close()
    return home


#: Whether the processes measured may keep compiled bytecode (see `app_env`); `--no-bytecode-cache` clears it.
BYTECODE_CACHE = True
#: `--textual-output`: the app sends Textual's own output instead of its output stage's (VISINDIGO_OUTPUT_STAGE=0).
TEXTUAL_OUTPUT = False
#: `--cursor-blink`: `[ui] cursor_blink = true` in the bench's config (what every run did before issue 14).
CURSOR_BLINK = False


def app_env(home: Path) -> dict[str, str]:
    """The environment of the measured processes: a clean terminal, the bench's home, and a bytecode cache.

    An installed app has its modules compiled (pip does that at install time) and so does the floor's
    Textual, while a checkout run with PYTHONDONTWRITEBYTECODE=1 would compile ~60 of the app's modules on
    every start. The cache lives in the bench's home so the checkout stays clean; `measure_startup` warms it.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "VISINDIGO"))}
    env.update(TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS), VISINDIGO_HOME=str(home))
    if BYTECODE_CACHE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
    if TEXTUAL_OUTPUT:
        env["VISINDIGO_OUTPUT_STAGE"] = "0"
    env["VISINDIGO_BENCH_KEY"] = "sk-bench"
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY"):
        env.pop(key, None)
    return env


def app_argv(fps: float | None) -> list[str]:
    argv = [sys.executable, "-m", "visindigo"]
    return [*argv, "--fps", str(fps)] if fps else argv


# --- an ordinary reply ------------------------------------------------------------------------------------------

SENTENCE = (
    "the plan keeps every branch of the work so a regenerated answer never replaces the one before it and the "
    "user can compare both side by side before choosing which one to continue from tomorrow morning"
)
WORDS = SENTENCE.split(" ")


def paragraph(seed: int, words: int) -> str:
    return " ".join(WORDS[(seed * 7 + i) % len(WORDS)] for i in range(words)).capitalize() + "."


def code_block(seed: int, lines: int = 30) -> str:
    body = [f"def step_{seed}(value: int) -> int:"]
    body += [f"    value = value * {i + 2} + {seed}  # line {i}" for i in range(lines - 2)]
    body.append("    return value")
    return "```python\n" + "\n".join(body) + "\n```"


def _tokens(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def ordinary_reply_tokens(count: int) -> list[str]:
    """`count` tokens of Markdown (headings, paragraphs, 30-line code blocks, short lists), whole sections only,
    ending with a paragraph whose last word is END_MARK."""
    sections: list[str] = []
    seed = 0
    while True:
        section = [
            f"## Part {seed + 1}",
            paragraph(seed, 60),
            "\n".join(f"- {paragraph(seed + k, 6)}" for k in range(3)),
            code_block(seed),
            paragraph(seed + 1, 40),
        ]
        if len(_tokens("\n\n".join(sections + section))) > count - 40:
            break
        sections += section
        seed += 1
    tokens = _tokens("\n\n".join(sections) + "\n\n")
    filler = max(0, count - len(tokens) - 1)
    closing = " ".join(WORDS[i % len(WORDS)] for i in range(filler))
    return tokens + _tokens(f"{closing} {END_MARK}\n")[-(filler + 1) :]


def streaming_reply(tokens: list[str], rate: float) -> Reply:
    """`tokens` as one SSE chunk each, `rate` tokens per second (grouped into 5 ms batches when faster)."""
    reply = openai_stream(tokens, usage=(100, len(tokens)))
    per_batch = max(1, round(rate * 0.005))
    events = reply.chunks
    head, body, tail = events[:1], events[1 : 1 + len(tokens)], events[1 + len(tokens) :]
    batches = [b"".join(body[i : i + per_batch]) for i in range(0, len(body), per_batch)]
    return Reply(chunks=head + batches + [b"".join(tail)], delay_between=per_batch / rate)


# --- measurements -------------------------------------------------------------------------------------------------


def first_frame(argv: list[str], env: dict[str, str], marker: str) -> float:
    terminal = Terminal.spawn(argv, env)
    try:
        return terminal.wait_for(marker, timeout=30) - terminal.started
    finally:
        terminal.close()


def measure_startup(home: Path, fps: float | None, runs: int) -> None:
    env = app_env(home)
    floor_script = home / "floor_app.py"
    floor_script.write_text(FLOOR_APP)
    first_frame([sys.executable, str(floor_script)], env, "FLOOR-READY")  # warm-up: bytecode, disk cache
    first_frame(app_argv(fps), env, "enter sends")
    first_frame([*app_argv(fps), "--demo"], env, "enter sends")
    floors, apps, demos = [], [], []
    for _ in range(runs):
        floors.append(first_frame([sys.executable, str(floor_script)], env, "FLOOR-READY"))
        apps.append(first_frame(app_argv(fps), env, "enter sends"))
        demos.append(first_frame([*app_argv(fps), "--demo"], env, "enter sends"))
    floor = statistics.median(floors)
    cache = "bytecode cached" if BYTECODE_CACHE else "no bytecode cache"
    print(f"start-up (process start → first frame, median of {runs}, 500 dialogs stored, {cache})")
    print(f"  minimal Textual app : {floor * 1000:7.0f} ms   (runs {_spread(floors)})")
    for name, times in (("visindigo", apps), ("visindigo --demo", demos)):
        ratios = sorted(a / f for a, f in zip(times, floors, strict=True))
        median = statistics.median(times)
        print(f"  {name:<19} : {median * 1000:7.0f} ms   (runs {_spread(times)})")
        print(f"  {'ratio':<19} : {median / floor:7.2f}   (target <= 1.5; per run {ratios[0]:.2f}–{ratios[-1]:.2f})")


def _spread(seconds: list[float]) -> str:
    return f"{min(seconds) * 1000:.0f}–{max(seconds) * 1000:.0f} ms"


def ready_terminal(home: Path, fps: float | None) -> Terminal:
    terminal = Terminal.spawn(app_argv(fps), app_env(home))
    terminal.wait_for("enter sends", timeout=30)
    time.sleep(0.5)
    return terminal


@dataclass
class StreamRun:
    """One streamed reply, timed from the Enter key press."""

    first_words: float  # Enter → the reply's first words on screen
    asked: float  # Enter → the server received the request
    last_token: float  # Enter → the last token on screen
    done: float  # Enter → drawing finished
    cpu_streaming: float  # share of one core from Enter to the last token
    cpu_done: float  # CPU seconds from Enter to done
    written: int  # bytes written to the terminal from Enter to done
    screen_checked: str  # the terminal-emulator check of what was drawn


def stream_once(server: LLMServer, home: Path, fps: float | None, words: list[str], rate: float) -> StreamRun:
    reply = streaming_reply(words, rate)
    asked: list[float] = []

    def respond(request: RecordedRequest) -> Reply:
        asked.append(time.perf_counter())
        return reply

    server.responder = respond
    terminal = ready_terminal(home, fps)
    try:
        terminal.type(b"go")
        terminal.quiet_after(time.perf_counter(), quiet=0.5)
        cpu_before = terminal.cpu_seconds()
        pressed = time.perf_counter()
        terminal.type(b"\r")
        duration = len(words) / rate
        first = terminal.wait_for("Part 1", timeout=30, after=pressed)
        last_token = terminal.wait_for(END_MARK, timeout=duration * 4 + 30, after=pressed)
        cpu_at_last = terminal.cpu_seconds()
        # The final render (code colouring) can come more than a second after the last streamed frame on a
        # loaded machine; 2.5 s of quiet is "done".
        done = terminal.quiet_after(last_token, quiet=2.5)
        cpu_done = terminal.cpu_seconds()
        written = terminal.bytes_between(pressed, done)
        checked = check_screen(terminal)
    finally:
        terminal.close()
        server.responder = None
    return StreamRun(
        first_words=first - pressed,
        asked=asked[0] - pressed,
        last_token=last_token - pressed,
        done=done - pressed,
        cpu_streaming=(cpu_at_last - cpu_before) / (last_token - pressed),
        cpu_done=cpu_done - cpu_before,
        written=written,
        screen_checked=checked,
    )


def check_screen(terminal: Terminal) -> str:
    """The bytes figure is only a saving if the terminal shows what it should: everything the app wrote,
    replayed into a terminal emulator (pyte), must equal the screen the app draws from scratch once a modal
    (the command palette) has opened and closed (a full repaint). Raises if not."""
    import pyte

    def emulated() -> list[str]:
        screen = pyte.Screen(COLUMNS, ROWS)
        stream = pyte.ByteStream(screen)
        with terminal._lock:
            stream.feed(bytes(terminal._text))
        return list(screen.display)

    problem = ""
    for attempt in range(3):  # on a loaded machine the app may still change the screen after a quiet spell
        drawn = emulated()
        if END_MARK not in "".join(drawn):
            raise AssertionError("the last token is not on the emulated screen:\n" + "\n".join(drawn))
        terminal.type(b"\x10")  # ctrl+p: the command palette, a modal screen …
        time.sleep(1.5)  # (its input's cursor may blink, so the app need not go quiet)
        terminal.type(b"\x1b")  # … closed again: the app repaints every cell (its output stage forgets what was sent)
        terminal.quiet_after(time.perf_counter(), quiet=1.5)
        repainted = emulated()
        if drawn == repainted:
            return f"{ROWS} rows equal a full repaint" + (f" (attempt {attempt + 1})" if attempt else "")
        pairs = enumerate(zip(drawn, repainted, strict=True))
        rows = [f"{y}: drawn     {a!r}\n{y}: repainted {b!r}" for y, (a, b) in pairs if a != b]
        problem = "\n".join(rows[:8])
    raise AssertionError("the screen drawn by the stream differs from a full repaint:\n" + problem)


def measure_stream(
    server: LLMServer, home: Path, fps: float | None, tokens: int, rate: float, label: str, runs: int
) -> None:
    words = ordinary_reply_tokens(tokens)
    results = [stream_once(server, home, fps, words, rate) for _ in range(runs)]
    duration = len(words) / rate

    def line(name: str, values: list[float], unit: str, scale: float = 1.0, digits: int = 2) -> str:
        shown = [v * scale for v in values]
        spread = f"{min(shown):.{digits}f}–{max(shown):.{digits}f}"
        return f"  {name:<34}: {statistics.median(shown):8.{digits}f} {unit}   (runs {spread})"

    print(f"{label}: {len(words):,} tokens at {rate:,.0f} tokens/s (stream {duration:.1f} s), median of {runs}")
    print(line("Enter → first words on screen", [r.first_words for r in results], "ms", 1000, 0))
    print(line("Enter → the server got the request", [r.asked for r in results], "ms", 1000, 0))
    print(line("last token on screen ÷ stream", [r.last_token / duration for r in results], "×"))
    print(line("done (drawing finished) ÷ stream", [r.done / duration for r in results], "×"))
    print(line("CPU while streaming", [r.cpu_streaming for r in results], "% of one core", 100, 1))
    print(line("CPU until done", [r.cpu_done for r in results], "s"))
    print(line("written to the terminal per token", [r.written / len(words) for r in results], "bytes", 1, 0))
    print(f"  terminal-emulator check           : {results[-1].screen_checked}")


def measure_idle(home: Path, fps: float | None, seconds: float, runs: int) -> None:
    """Bytes and CPU while nothing happens: the app started, the composer focused, no key pressed."""
    rates, cpus = [], []
    for _ in range(runs):
        terminal = ready_terminal(home, fps)
        try:
            terminal.quiet_after(time.perf_counter(), quiet=1.5)  # start-up's last drawing is over
            start, cpu_before = time.perf_counter(), terminal.cpu_seconds()
            time.sleep(seconds)
            end, cpu_after = time.perf_counter(), terminal.cpu_seconds()
            rates.append(terminal.bytes_between(start, end) / (end - start))
            cpus.append((cpu_after - cpu_before) / (end - start))
        finally:
            terminal.close()
    print(f"idle ({seconds:.0f} s with nothing happening, median of {runs})")
    print(f"  written to the terminal : {statistics.median(rates):7.1f} bytes/s   "
          f"(runs {min(rates):.1f}–{max(rates):.1f}; target 0 unless [ui] cursor_blink)")
    print(f"  CPU                     : {100 * statistics.median(cpus):7.2f} % of one core   "
          f"(runs {100 * min(cpus):.2f}–{100 * max(cpus):.2f}; target <= 0.3 %)")


def measure_open(home: Path, fps: float | None, runs: int) -> None:
    times = []
    for _ in range(runs):
        terminal = ready_terminal(home, fps)
        try:
            # Pauses long enough for a loaded machine: a key that arrives before the focus has moved goes to
            # the wrong widget (Enter in the search box searches instead of opening).
            terminal.type(b"\x06")  # ctrl+f: the search box
            time.sleep(1.0)
            terminal.type(b"\t")  # the tree; its cursor is on the newest dialog (the long one)
            time.sleep(1.0)
            pressed = time.perf_counter()
            terminal.type(b"\r")
            shown = terminal.wait_for(END_MARK + "LONG", timeout=30, after=pressed)
            times.append(shown - pressed)
        finally:
            terminal.close()
    print(f"open a 2,000-message dialog (Enter in the tree → last message on screen, median of {runs})")
    print(f"  {statistics.median(times) * 1000:.0f} ms   (target < 500 ms; runs: "
          + ", ".join(f"{t * 1000:.0f}" for t in times) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fps", type=float, default=None, help="the app's --fps (default: the app's default)")
    parser.add_argument("--runs", type=int, default=3, help="repetitions of start-up and open")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="compile the app's sources on every start (as a checkout)"
    )
    parser.add_argument(
        "--textual-output", action="store_true", help="Textual's own output instead of the app's output stage"
    )
    parser.add_argument("--cursor-blink", action="store_true", help="[ui] cursor_blink = true (the old default)")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--only", choices=["startup", "idle", "everyday", "fast", "open"], action="append")
    args = parser.parse_args()
    global BYTECODE_CACHE, CURSOR_BLINK, TEXTUAL_OUTPUT
    CURSOR_BLINK = args.cursor_blink
    BYTECODE_CACHE = not args.no_bytecode_cache
    TEXTUAL_OUTPUT = args.textual_output
    with LLMServer() as server:
        print("preparing a home with 500 stored dialogs and one of 2,000 messages…", flush=True)
        home = make_home(server, dialogs=500, big=2000, cursor_blink=args.cursor_blink)
        output = "Textual's own" if TEXTUAL_OUTPUT else "the output stage"
        blink = "blinking" if args.cursor_blink else "steady"
        print(f"frame rate while streaming: {args.fps or 'app default'}; output: {output}; cursor: {blink}\n")
        steps: dict[str, Callable[[], None]] = {
            "startup": lambda: measure_startup(home, args.fps, args.runs),
            "open": lambda: measure_open(home, args.fps, args.runs),  # before the streams add newer dialogs
            "idle": lambda: measure_idle(home, args.fps, args.idle_seconds, args.runs),
            "everyday": lambda: measure_stream(server, home, args.fps, 2000, 100, "everyday streaming", args.runs),
            "fast": lambda: measure_stream(server, home, args.fps, 4000, 2000, "fast streaming", args.runs),
        }
        try:
            for name, step in steps.items():
                if args.only and name not in args.only:
                    continue
                if name == "startup" and args.skip_startup:
                    continue
                step()
                print(flush=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)  # a few MB of dialogs per run


if __name__ == "__main__":
    main()
