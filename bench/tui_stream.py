"""The real app in a pseudo-terminal: every row of issue 14's table (and issue 6 §7's start-up and streaming).

Every figure is taken from the outside, as a user's terminal (or an SSH link) would see it: the app runs as
`python -m visindigo` in a pty of 120×40 with TERM=xterm-256color, its output is read and counted byte by byte
with timestamps, and its CPU time is read from /proc/<pid>/stat. Replies come from the loopback LLM server of
the tests (tests/llm_server.py) speaking OpenAI chat-completions SSE. The steps, in the table's order (the
first four and the last two are in bench/tui_replies.py):

  floor        the same 2,000-token reply (and the fast one) streamed by a bare Textual app through Textual's own
               MarkdownStream in the same pty (bench/tui_floor.py): what the everyday and fast rows are
               divided by for their ratios. Targets (issue 23): CPU <= 0.2× the floor's at --fps 8.
  memory       100 replies of 500 tokens in one dialog: RSS after each. Target < 120 MB, flat.
  long-dialog  a 2,000-message dialog: Enter in the tree → painted (target < 250 ms); then Home until its
               first message shows: presses, seconds, RSS (target one press, < 1 s, < 150 MB).
  everyday     2,000 tokens at 100 tokens/s of an ordinary reply (headings, paragraphs, 30-line code blocks,
               short lists), timed from the Enter key press. Targets: <= 15 % of one core; <= 200 bytes
               written per token; frames per second. The bytes figure is checked in a terminal emulator (pyte):
               everything written must leave the screen the app repaints from scratch afterwards, so a saving
               cannot come from drawing less.
  fast         4,000 tokens at 2,000 tokens/s. Target: last token within 1.2× the stream's duration.
  startup      process start → first frame, with 500 dialogs stored, of `visindigo` and of `visindigo --demo`,
               against a minimal Textual app that shows one Static (the floor). Target: ratio <= 1.5. And the
               demo ready: its model named in the status line (read on the emulated screen). Target <= 2×.
  idle         bytes written and CPU over 10 s in which nothing happens. Target: 0 bytes/s, <= 0.3 % of a core.
  first-reply  Enter → first token on screen, the first reply after start against later ones. Target <= 1.5×.
  final-render the last streamed frame → the frame with the code coloured. Target <= 100 ms.

Each step runs `--runs` times (memory: once, over `--replies` replies) and is reported as the median with the
spread; at the end every row is printed again as one table with n, spread and the ratio to its floor where it
has one. Run from the repository root (the whole table takes 15–25 minutes on a loaded 2-core machine):

    .venv/bin/python bench/tui_stream.py [--fps N] [--runs 3] [--only STEP …] [--skip STEP …]
        [--replies 100] [--textual-output] [--cursor-blink]

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


@dataclass
class Row:
    """One row of the issue's table: the median of `values` (n = their number), its spread, and the target."""

    what: str
    values: list[float]
    unit: str
    target: str
    floor: float | None = None  # what the figure is divided by for its ratio, when it has one
    digits: int = 0

    def line(self) -> str:
        median = statistics.median(self.values)
        spread = f"{min(self.values):.{self.digits}f}–{max(self.values):.{self.digits}f}"
        ratio = f"  ratio {median / self.floor:.2f}" if self.floor else ""
        return (
            f"| {self.what} | {median:.{self.digits}f} {self.unit} (n={len(self.values)}, {spread}){ratio} "
            f"| {self.target} |"
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

    def frames_between(self, start: float, end: float, gap: float = 0.02) -> int:
        """How many frames were written between `start` and `end`: a frame is a burst of writes, and one begins
        after `gap` seconds without output."""
        with self._lock:
            times = [when for when, _data in self.chunks if start <= when <= end]
        return sum(1 for previous, when in zip([-1.0, *times], times, strict=False) if when - previous >= gap)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS

    def cpu_quiet(self, share: float = 0.01, interval: float = 1.0, timeout: float = 60.0) -> float:
        """Wait until the app uses less than `share` of a core over `interval` (start-up's work in the
        background — the store check, the warm-up imports, the last dialog's render — is over); the seconds
        that took."""
        began = time.perf_counter()
        while time.perf_counter() - began < timeout:
            before = self.cpu_seconds()
            time.sleep(interval)
            if self.cpu_seconds() - before < share * interval:
                break
        return time.perf_counter() - began

    def close(self) -> None:
        try:
            self.type(b"\x11")  # ctrl+q
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        os.close(self.master)


class EmulatedScreen:
    """What the terminal shows, replayed in a terminal emulator (pyte) as the output arrives.

    The output stage writes only the cells that change, so a word can be on screen without ever being written
    whole (`Message 0:` where `Message 1:` was needs two cells); waiting for text therefore reads the
    emulated screen, not the bytes.
    """

    def __init__(self, terminal: Terminal) -> None:
        import pyte

        self.terminal = terminal
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.fed = 0

    def _new_chunks(self) -> list[tuple[float, bytes]]:
        """The output not fed yet. A wait that stops at a chunk leaves the rest unfed for the next call (feeding
        all of it, or dropping it, would put a later frame on screen before the wait's time, or lose it)."""
        with self.terminal._lock:
            return self.terminal.chunks[self.fed :]

    def text(self) -> str:
        for _when, data in self._new_chunks():
            self.stream.feed(data)
            self.fed += 1
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float, after: float = 0.0) -> float:
        """When `needle` was first on the emulated screen in output written after `after`; raises on timeout."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for when, data in self._new_chunks():
                self.stream.feed(data)
                self.fed += 1
                if when >= after and needle in "\n".join(self.screen.display):
                    return when
            time.sleep(0.005)
        shown = "\n".join(self.screen.display)
        raise TimeoutError(f"{needle!r} was not on screen within {timeout:.0f} s; the screen showed:\n{shown}")


def new_dialog_with_draft(terminal: Terminal, screen: EmulatedScreen) -> None:
    """ctrl+n, then "go" typed into the composer, checked on screen: on a loaded machine the app may still be
    opening the dialog it resumed at start, and keys typed meanwhile can be lost."""
    terminal.quiet_after(time.perf_counter(), quiet=1.0)
    for _attempt in range(3):
        terminal.type(b"\x0e")  # ctrl+n: a new dialog, an empty pane
        terminal.quiet_after(time.perf_counter(), quiet=0.5)
        typed = time.perf_counter()
        terminal.type(b"go")
        try:
            screen.wait_for("│ go ", timeout=10, after=typed)  # the composer shows the draft
        except TimeoutError:
            continue
        terminal.quiet_after(time.perf_counter(), quiet=0.5)
        return
    raise TimeoutError("the composer never showed what was typed:\n" + screen.text())


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


#: What the demo's status line names once the demo is ready (its provider and model chosen and shown).
DEMO_READY = "Visindigo demo"


def first_frame(argv: list[str], env: dict[str, str], marker: str) -> float:
    terminal = Terminal.spawn(argv, env)
    try:
        return terminal.wait_for(marker, timeout=30) - terminal.started
    finally:
        terminal.close()


def demo_ready(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """`--demo`'s first frame (the composer's line) and the time its model is named in the status line, both
    read on the emulated screen (issue 23: "the demo ready ... <= 2x" a bare Textual app)."""
    terminal = Terminal.spawn(argv, env)
    try:
        screen = EmulatedScreen(terminal)
        first = screen.wait_for("enter sends", timeout=30) - terminal.started
        return first, screen.wait_for(DEMO_READY, timeout=30) - terminal.started
    finally:
        terminal.close()


def measure_startup(home: Path, fps: float | None, runs: int) -> list[Row]:
    env = app_env(home)
    floor_script = home / "floor_app.py"
    floor_script.write_text(FLOOR_APP)
    first_frame([sys.executable, str(floor_script)], env, "FLOOR-READY")  # warm-up: bytecode, disk cache
    first_frame(app_argv(fps), env, "enter sends")
    first_frame([*app_argv(fps), "--demo"], env, "enter sends")
    floors, apps, demos, readies = [], [], [], []
    for _ in range(runs):
        floors.append(first_frame([sys.executable, str(floor_script)], env, "FLOOR-READY"))
        apps.append(first_frame(app_argv(fps), env, "enter sends"))
        demo_first, demo_named = demo_ready([*app_argv(fps), "--demo"], env)
        demos.append(demo_first)
        readies.append(demo_named)
    floor = statistics.median(floors)
    cache = "bytecode cached" if BYTECODE_CACHE else "no bytecode cache"
    print(f"start-up (process start → first frame, median of {runs}, 500 dialogs stored, {cache})")
    print(f"  minimal Textual app : {floor * 1000:7.0f} ms   (runs {_spread(floors)})")
    rows = [Row("first frame of a bare Textual app (the floor)", [t * 1000 for t in floors], "ms", "")]
    for name, times in (("visindigo", apps), ("visindigo --demo", demos)):
        ratios = sorted(a / f for a, f in zip(times, floors, strict=True))
        median = statistics.median(times)
        print(f"  {name:<19} : {median * 1000:7.0f} ms   (runs {_spread(times)})")
        print(f"  {'ratio':<19} : {median / floor:7.2f}   (target <= 1.5; per run {ratios[0]:.2f}–{ratios[-1]:.2f})")
        rows.append(Row(f"first frame of `{name}`", [t * 1000 for t in times], "ms", "≤ 1.5× the floor",
                        floor=floor * 1000))
    ratios = sorted(r / f for r, f in zip(readies, floors, strict=True))
    print(f"  {'--demo ready':<19} : {statistics.median(readies) * 1000:7.0f} ms   (runs {_spread(readies)}; "
          f"its model named in the status line)")
    print(f"  {'ratio':<19} : {statistics.median(readies) / floor:7.2f}   (target <= 2; per run "
          f"{ratios[0]:.2f}–{ratios[-1]:.2f})")
    rows.append(Row("`visindigo --demo` ready (its model named in the status line)", [t * 1000 for t in readies],
                    "ms", "≤ 2× the floor", floor=floor * 1000))
    return rows


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
    frames_per_second: float  # frames written while streaming (writes 20 ms or more apart start a new one)
    screen_checked: str  # the terminal-emulator check of what was drawn


def stream_once(server: LLMServer, home: Path, fps: float | None, words: list[str], rate: float) -> StreamRun:
    reply = streaming_reply(words, rate)
    asked: list[float] = []

    def respond(request: RecordedRequest) -> Reply:
        asked.append(time.perf_counter())
        return reply

    server.responder = respond
    terminal = ready_terminal(home, fps)
    screen = EmulatedScreen(terminal)
    try:
        new_dialog_with_draft(terminal, screen)  # every reply streams into an empty pane
        cpu_before = terminal.cpu_seconds()
        pressed = time.perf_counter()
        terminal.type(b"\r")
        duration = len(words) / rate
        # (at 2,000 tokens/s the first frame is already past the first heading: there, the first request is it)
        first = screen.wait_for("Part 1", timeout=30, after=pressed) if rate <= 500 else pressed
        last_token = screen.wait_for(END_MARK, timeout=duration * 4 + 30, after=pressed)
        cpu_at_last = terminal.cpu_seconds()
        # The final render (code colouring) can come more than a second after the last streamed frame on a
        # loaded machine; 2.5 s of quiet is "done".
        done = terminal.quiet_after(last_token, quiet=2.5)
        cpu_done = terminal.cpu_seconds()
        written = terminal.bytes_between(pressed, done)
        frames = terminal.frames_between(first, last_token)
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
        frames_per_second=frames / max(1e-3, last_token - first),
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
) -> list[Row]:
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
    print(line("frames written per second", [r.frames_per_second for r in results], "", 1, 1))
    print(f"  terminal-emulator check           : {results[-1].screen_checked}")
    what = f"{len(words):,} tokens at {rate:,.0f} tok/s"
    name = "everyday" if rate <= 100 else "fast"
    if name + "-cpu" in FLOOR:  # (the floor step ran first: each figure also as a ratio to Textual's own stream)
        cpu = statistics.median(r.cpu_streaming for r in results)
        print(f"  ÷ the floor (MarkdownStream)      : CPU {cpu / FLOOR[name + '-cpu']:.2f}×, bytes/token "
              f"{statistics.median(r.written for r in results) / len(words) / FLOOR[name + '-bytes']:.2f}×, "
              f"last token {statistics.median(r.last_token for r in results) / duration / FLOOR[name + '-last']:.2f}×")
    if rate <= 100:
        return [
            Row(f"{what}: CPU while streaming", [r.cpu_streaming * 100 for r in results], "% of a core",
                "≤ 0.2× the floor's", floor=FLOOR.get("everyday-cpu", 0) * 100 or None, digits=1),
            Row(f"{what}: written per token", [r.written / len(words) for r in results], "bytes",
                "≤ 40 bytes/token", floor=FLOOR.get("everyday-bytes"), digits=0),
            Row(f"{what}: frames per second", [r.frames_per_second for r in results], "", "≥ 8", digits=1),
        ]
    return [
        Row(f"{what}: last token on screen ÷ stream time", [r.last_token / duration for r in results], "×", "≤ 1.2",
            floor=FLOOR.get("fast-last"), digits=2)
    ]


def measure_idle(home: Path, fps: float | None, seconds: float, runs: int) -> list[Row]:
    """Bytes and CPU while nothing happens: the app started, the composer focused, no key pressed."""
    rates, cpus, settling = [], [], []
    for _ in range(runs):
        terminal = ready_terminal(home, fps)
        try:
            terminal.quiet_after(time.perf_counter(), quiet=1.5)  # start-up's last drawing is over
            settling.append(terminal.cpu_quiet())  # and its work in the background
            start, cpu_before = time.perf_counter(), terminal.cpu_seconds()
            time.sleep(seconds)
            end, cpu_after = time.perf_counter(), terminal.cpu_seconds()
            rates.append(terminal.bytes_between(start, end) / (end - start))
            cpus.append((cpu_after - cpu_before) / (end - start))
        finally:
            terminal.close()
    print(f"idle ({seconds:.0f} s with nothing happening, median of {runs}; start-up's background work was over "
          f"{statistics.median(settling):.1f} s after the first frame's output stopped, runs "
          f"{min(settling):.1f}–{max(settling):.1f} s)")
    print(f"  written to the terminal : {statistics.median(rates):7.1f} bytes/s   "
          f"(runs {min(rates):.1f}–{max(rates):.1f}; target 0 unless [ui] cursor_blink)")
    print(f"  CPU                     : {100 * statistics.median(cpus):7.2f} % of one core   "
          f"(runs {100 * min(cpus):.2f}–{100 * max(cpus):.2f}; target <= 0.3 %)")
    return [
        Row("idle: written to the terminal", rates, "bytes/s", "0 unless a blinking cursor is chosen", digits=1),
        Row("idle: CPU", [c * 100 for c in cpus], "% of a core", "≤ 0.3 %", digits=2),
    ]


#: The floor's figures once its step ran (see bench/tui_floor.py), by "everyday-cpu", "fast-last", ...
FLOOR: dict[str, float] = {}

#: The steps, in the order of issue 14's table (which the summary at the end follows), the floor first.
STEP_NAMES = ["floor", "memory", "long-dialog", "everyday", "fast", "startup", "idle", "first-reply", "final-render"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fps", type=float, default=None, help="the app's --fps (default: the app's default)")
    parser.add_argument("--runs", type=int, default=3, help="repetitions of each measurement")
    parser.add_argument("--replies", type=int, default=100, help="replies of the memory measurement")
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="compile the app's sources on every start (as a checkout)"
    )
    parser.add_argument(
        "--textual-output", action="store_true", help="Textual's own output instead of the app's output stage"
    )
    parser.add_argument("--cursor-blink", action="store_true", help="[ui] cursor_blink = true (the old default)")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--only", choices=STEP_NAMES, action="append", help="run only these steps (repeatable)")
    parser.add_argument("--skip", choices=STEP_NAMES, action="append", default=[], help="leave these steps out")
    args = parser.parse_args()
    global BYTECODE_CACHE, CURSOR_BLINK, TEXTUAL_OUTPUT
    CURSOR_BLINK = args.cursor_blink
    BYTECODE_CACHE = not args.no_bytecode_cache
    TEXTUAL_OUTPUT = args.textual_output
    sys.modules.setdefault("tui_stream", sys.modules[__name__])  # one copy of this module's settings
    import tui_floor
    import tui_replies

    with LLMServer() as server:
        print("preparing a home with 500 stored dialogs and one of 2,000 messages…", flush=True)
        home = make_home(server, dialogs=500, big=2000, cursor_blink=args.cursor_blink)
        output = "Textual's own" if TEXTUAL_OUTPUT else "the output stage"
        blink = "blinking" if args.cursor_blink else "steady"
        print(f"frame rate while streaming: {args.fps or 'app default'}; output: {output}; cursor: {blink}\n")
        runs, fps = args.runs, args.fps
        def floor() -> list[Row]:
            FLOOR.update(tui_floor.measure_floor(server, runs))
            return [
                Row("floor: 2,000 tokens at 100 tok/s through MarkdownStream: CPU", [FLOOR["everyday-cpu"] * 100],
                    "% of a core", "—", digits=1),
                Row("floor: bytes per token", [FLOOR["everyday-bytes"]], "bytes", "—"),
                Row("floor: 4,000 tokens at 2,000 tok/s: last token ÷ stream", [FLOOR["fast-last"]], "×", "—",
                    digits=2),
            ]

        steps: dict[str, Callable[[], list[Row]]] = {
            "floor": floor,
            "memory": lambda: tui_replies.measure_memory(server, home, fps, args.replies),
            "long-dialog": lambda: tui_replies.measure_long_dialog(home, fps, runs),
            "everyday": lambda: measure_stream(server, home, fps, 2000, 100, "everyday streaming", runs),
            "fast": lambda: measure_stream(server, home, fps, 4000, 2000, "fast streaming", runs),
            "startup": lambda: measure_startup(home, fps, runs),
            "idle": lambda: measure_idle(home, fps, args.idle_seconds, runs),
            "first-reply": lambda: tui_replies.measure_first_reply(server, home, fps, runs),
            "final-render": lambda: tui_replies.measure_final_render(server, home, fps, runs),
        }
        rows: list[Row] = []
        try:
            for name in STEP_NAMES:
                if (args.only and name not in args.only) or name in args.skip:
                    continue
                rows += steps[name]()
                print(flush=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)  # a few MB of dialogs per run
    print("| what | now (median, n, spread) | target |\n|---|---|---|")
    for row in rows:
        print(row.line())


if __name__ == "__main__":
    main()
