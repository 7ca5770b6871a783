"""Streaming side by side: 1, 2 and 4 models answering at once, each at 100 tokens/s (issue 16).

The real app in a pseudo-terminal of 160×45 (wide enough for four columns side by side), measured from the
outside as in `tui_stream.py`, whose terminal, home and reply helpers this reuses: CPU time from
/proc/<pid>/stat, every byte written to the terminal counted. Replies come from the loopback LLM server of the
tests (tests/llm_server.py), one scripted model per column, each an ordinary Markdown reply (headings,
paragraphs, code blocks, lists) ending with its own end mark.

  1 column     the question sent on the main screen: one message pane (the baseline)
  2, 4 columns the same question compared (alt+c, enter): one pane per model side by side

Measured from the first request reaching the server until the drawing is done (opening the comparison
screen comes before and is shown as "enter → asked"): CPU seconds of the app, and as a share of one core over
the stream's nominal duration (tokens ÷ rate: what it costs on an idle machine, where the streams end on time);
bytes written, per second of the stream and per token (every column's tokens counted). Target: four columns
within the one-pane figures × 2 (CPU, bytes). The question is typed and the keys pressed as a user would: alt+c
opens the compare picker with the models already chosen (the last set, seeded in the home), enter starts.

    .venv/bin/python bench/compare_stream.py [--tokens 1000] [--rate 100] [--fps N] [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tui_stream
from tui_stream import END_MARK, Terminal, app_argv, app_env, ordinary_reply_tokens, streaming_reply

from tests.llm_server import LLMServer, RecordedRequest, Reply

tui_stream.COLUMNS, tui_stream.ROWS = 160, 45
MODELS = [f"bench-{n}" for n in range(1, 5)]

def make_home(server: LLMServer) -> Path:
    """A VISINDIGO_HOME whose config has one provider on the loopback server with four models."""
    home = Path(tempfile.mkdtemp(prefix="visindigo-compare-bench-"))
    (home / "config").mkdir()
    models = "".join(f'\n[[providers.bench.models]]\nid = "{model}"\ncapabilities = ["text"]\n' for model in MODELS)
    (home / "config" / "config.toml").write_text(
        textwrap.dedent(
            f"""
            default_provider = "bench"

            [providers.bench]
            kind = "openai"
            base_url = "{server.openai_url}"
            api_key_env = "VISINDIGO_BENCH_KEY"
            default_model = "{MODELS[0]}"

            [ui]
            cursor_blink = false
            """
        )
        + models
    )
    return home


def seed_last_set(home: Path, columns: int) -> None:
    """The models the compare key's picker offers first (the last set, engine.compare.last_set): enter takes them."""
    data = home / "data"
    data.mkdir(exist_ok=True)
    chosen = [{"provider_id": "bench", "model_id": model} for model in MODELS[:columns]]
    (data / "compare.json").write_text(json.dumps({"last_set": chosen}))


def replies(tokens: int, rate: float) -> dict[str, tuple[Reply, str, int]]:
    """Each model's reply, its own end mark, and its token count."""
    made = {}
    for number, model in enumerate(MODELS, start=1):
        words = ordinary_reply_tokens(tokens)
        mark = f"{END_MARK}{number}"
        words[-1] = words[-1].replace(END_MARK, mark)
        made[model] = (streaming_reply(words, rate), mark, len(words))
    return made


@dataclass
class CompareRun:
    columns: int
    tokens: int  # streamed in all columns together
    stream: float  # the nominal duration of one model's stream (tokens per model ÷ rate)
    asked: float  # enter → the last column's request reached the server
    last_token: float  # the first request → every column's last token on screen
    cpu: float  # CPU seconds from the first request until the drawing is done
    written: int  # bytes written from the first request until the drawing is done


def stream_once(server: LLMServer, home: Path, fps: float | None, columns: int, tokens: int, rate: float) -> CompareRun:
    scripted = replies(tokens, rate)
    asked: list[tuple[float, str]] = []

    def respond(request: RecordedRequest) -> Reply:
        model = (request.json or {}).get("model", MODELS[0])
        asked.append((time.perf_counter(), model))
        return scripted[model][0]

    server.responder = respond
    seed_last_set(home, columns)
    terminal = Terminal.spawn(app_argv(fps), app_env(home))
    try:
        terminal.wait_for("enter sends", timeout=60)
        terminal.type(b"go")
        terminal.quiet_after(time.perf_counter(), quiet=0.5)
        if columns > 1:
            terminal.type(b"\x1bc")  # alt+c: the compare picker, the last set already chosen
            terminal.wait_for(f"Compare {columns} of", timeout=30)
            terminal.quiet_after(time.perf_counter(), quiet=0.5)
        pressed = time.perf_counter()
        terminal.type(b"\r")  # enter: sends the question, or starts the comparison
        deadline = pressed + 60
        while not asked and time.perf_counter() < deadline:
            time.sleep(0.001)
        cpu_before = terminal.cpu_seconds()  # the streaming begins: what came before is opening the screen
        start = asked[0][0]
        marks = [scripted[model][1] for model in MODELS[:columns]]
        stream = tokens / rate
        last = max(terminal.wait_for(mark, timeout=stream * 6 + 60, after=start) for mark in marks)
        done = terminal.quiet_after(last, quiet=2.5)
        cpu = terminal.cpu_seconds() - cpu_before
        written = terminal.bytes_between(start, done)
    finally:
        terminal.close()
        server.responder = None
    if sorted(model for _, model in asked) != MODELS[:columns]:
        raise AssertionError(f"the server was asked for {asked}, not {MODELS[:columns]}")
    total = sum(scripted[model][2] for model in MODELS[:columns])
    return CompareRun(columns, total, stream, asked[-1][0] - pressed, last - start, cpu, written)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=1000, help="tokens per model (default 1,000)")
    parser.add_argument("--rate", type=float, default=100.0, help="tokens per second per model (default 100)")
    parser.add_argument("--fps", type=float, default=None, help="the app's --fps (default: the app's default)")
    parser.add_argument("--runs", type=int, default=1, help="repetitions of each case (the median is shown)")
    args = parser.parse_args()
    with LLMServer() as server:
        home = make_home(server)
        try:
            print(f"{args.tokens:,} tokens per model at {args.rate:.0f} tokens/s each, {tui_stream.COLUMNS}×"
                  f"{tui_stream.ROWS} terminal, frame rate {args.fps or 'app default'}\n")  # fmt: skip
            print(f"{'columns':>7}  {'CPU s':>6}  {'% of a core':>11}  {'bytes/s':>8}  {'bytes/token':>11}  "
                  f"{'enter → asked':>13}  {'last token ÷ stream':>19}")  # fmt: skip
            baseline: tuple[float, float] | None = None
            for columns in (1, 2, 4):
                runs = [stream_once(server, home, args.fps, columns, args.tokens, args.rate) for _ in range(args.runs)]
                stream = args.tokens / args.rate
                cpu = statistics.median(r.cpu for r in runs)
                rate = statistics.median(r.written / stream for r in runs)
                per_token = statistics.median(r.written / r.tokens for r in runs)
                asked = statistics.median(r.asked for r in runs)
                lag = statistics.median(r.last_token / stream for r in runs)
                baseline = baseline or (cpu, rate)
                print(f"{columns:>7}  {cpu:>6.2f}  {100 * cpu / stream:>10.1f}%  {rate:>8,.0f}  {per_token:>11,.0f}  "
                      f"{asked * 1000:>10,.0f} ms  {lag:>18.2f}×   (× one pane: CPU {cpu / baseline[0]:.2f}, "
                      f"bytes {rate / baseline[1]:.2f})", flush=True)  # fmt: skip
            print("\ntarget: 4 columns within 2.00× one pane in CPU and in bytes written")
        finally:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
