"""The floor of the streaming figures: the same reply streamed through Textual's own `MarkdownStream`.

A bare Textual app (a `Markdown` widget in an anchored `VerticalScroll`, nothing else) runs in the same
pseudo-terminal as `bench/tui_stream.py` runs the app, asks the same loopback server for the same reply over
the same OpenAI SSE wire on Enter, and writes every text delta into `Markdown.get_stream(...)`, as Textual's
documentation shows it. Its CPU, bytes per token and last token ÷ stream are measured exactly as the app's,
so each of the app's streaming figures can be given as a ratio to it, a ratio that holds on any machine.

    .venv/bin/python bench/tui_stream.py --only floor --only everyday --fps 8
"""

from __future__ import annotations

import statistics
import sys
import textwrap
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.llm_server import LLMServer

FLOOR_STREAM_APP = textwrap.dedent(
    """
    import json, sys

    import httpx
    from textual.app import App
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown, Static

    URL = sys.argv[1]


    class Floor(App):
        BINDINGS = [("enter", "go", "go")]

        def compose(self):
            with VerticalScroll(id="pane"):
                yield Markdown(id="reply")
            yield Static("FLOOR-READY enter streams")

        def action_go(self):
            self.run_worker(self.stream(), exclusive=True)

        async def stream(self):
            self.query_one("#pane").anchor()
            stream = Markdown.get_stream(self.query_one("#reply", Markdown))
            request = {"model": "bench-model", "stream": True, "messages": [{"role": "user", "content": "go"}]}
            try:
                async with httpx.AsyncClient(timeout=None) as client:
                    async with client.stream("POST", URL + "/chat/completions", json=request) as response:
                        async for line in response.aiter_lines():
                            if not line.startswith("data: ") or line == "data: [DONE]":
                                continue
                            choices = json.loads(line[6:]).get("choices") or [{}]
                            text = (choices[0].get("delta") or {}).get("content")
                            if text:
                                await stream.write(text)
            finally:
                await stream.stop()


    Floor().run()
    """
)


def floor_once(server: LLMServer, words: list[str], rate: float) -> tuple[float, float, float]:
    """(CPU share of a core while streaming, bytes written per token, last token on screen ÷ stream time)."""
    import tui_stream as bench  # (the bench's terminal and reply, one copy of its settings)

    reply = bench.streaming_reply(words, rate)
    server.responder = lambda _request: reply
    home = bench.Path(bench.tempfile.mkdtemp(prefix="visindigo-floor-"))
    terminal = bench.Terminal.spawn([sys.executable, "-c", FLOOR_STREAM_APP, server.openai_url], bench.app_env(home))
    screen = bench.EmulatedScreen(terminal)
    try:
        terminal.wait_for("FLOOR-READY", timeout=30)
        terminal.quiet_after(time.perf_counter(), quiet=1.0)
        cpu_before = terminal.cpu_seconds()
        pressed = time.perf_counter()
        terminal.type(b"\r")
        duration = len(words) / rate
        last_token = screen.wait_for(bench.END_MARK, timeout=duration * 40 + 120, after=pressed)  # (it lags far behind)
        cpu_at_last = terminal.cpu_seconds()
        done = terminal.quiet_after(last_token, quiet=2.5)
        written = terminal.bytes_between(pressed, done)
    finally:
        terminal.close()
        server.responder = None
        bench.shutil.rmtree(home, ignore_errors=True)
    return (cpu_at_last - cpu_before) / (last_token - pressed), written / len(words), (last_token - pressed) / duration


def measure_floor(server: LLMServer, runs: int) -> dict[str, float]:
    """The floor's figures for the everyday reply (2,000 tokens at 100 tok/s) and the fast one (4,000 at 2,000),
    medians of `runs`; printed, and returned for the app's rows to be divided by."""
    import tui_stream as bench

    figures: dict[str, float] = {}
    for name, tokens, rate in (("everyday", 2000, 100.0), ("fast", 4000, 2000.0)):
        words = bench.ordinary_reply_tokens(tokens)
        results = [floor_once(server, words, rate) for _ in range(runs)]
        cpu, per_token, last = (statistics.median(values) for values in zip(*results, strict=True))
        spread = ", ".join(f"{r[0] * 100:.1f} %" for r in results)
        print(f"floor ({name}: Textual's MarkdownStream, {len(words):,} tokens at {rate:,.0f} tok/s, median of {runs})")
        print(f"  CPU while streaming      : {cpu * 100:6.1f} % of one core   (runs {spread})")
        print(f"  written per token        : {per_token:6.0f} bytes")
        print(f"  last token ÷ stream      : {last:6.2f} ×")
        figures[f"{name}-cpu"], figures[f"{name}-bytes"], figures[f"{name}-last"] = cpu, per_token, last
    return figures
