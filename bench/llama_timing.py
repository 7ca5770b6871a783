"""First-token latency and tokens per second as the app shows them, against llama.cpp's own timing.

Starts the interop tests' server (llama.cpp's own llama-server on Gemma 3 270M, see tests/interop/llama_server.py),
runs a few answers through the same worker the app uses (`tui.workbench.driving.drive`, whose `RunState` feeds the
status line), and reads the server's `print_timing` lines for the same requests:

- app first token: from the start of the run to the first streamed delta (what the user waits for);
- server first token: llama.cpp's prompt eval time (the part of that wait the model itself spends);
- app tok/s: streamed deltas over the time between the first and the last (the status line's figure);
- server tok/s: llama.cpp's eval rate.

    .venv/bin/python bench/llama_timing.py [--answers 5] [--tokens 64]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.interop.llama_server import LlamaServer, model_path
from visindigo.engine import Center, ModelInfo, Provider, Role
from visindigo.tui.workbench import RunState
from visindigo.tui.workbench.driving import drive

_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms")
_EVAL = re.compile(r"\|\s+eval time =\s*([\d.]+) ms /\s*(\d+) tokens.*?([\d.]+) tokens per second")


async def measure(server: LlamaServer, answers: int, tokens: int) -> list[tuple[float, float]]:
    center = Center()
    provider = Provider("llamacpp", base_url=server.base_url, models=[ModelInfo(server.model_id)])
    provider.settings["server"] = "llama.cpp"
    center.add_provider(provider)
    figures = []
    for number in range(answers):
        dialog = center.create_dialog()
        dialog.parameters = {"max_tokens": tokens, "temperature": 0.8, "seed": number}
        dialog.append_message(Role.USER, f"Write a short story about the number {number}.")
        state = RunState(dialog.id)
        await drive(dialog, state, lambda message: None, None)
        first = state.first_token_at - state.started_at
        figures.append((first, state.tokens_per_second()))
    await center.aclose()
    return figures


def server_figures(log: str) -> list[tuple[float, float]]:
    prompts = [float(ms) / 1000 for ms in _PROMPT_EVAL.findall(log)]
    rates = [float(rate) for _, _, rate in _EVAL.findall(log)]
    return list(zip(prompts, rates, strict=False))


def wait_for_timings(server: LlamaServer, loaded: int, answers: int, timeout: float = 10.0) -> str:
    """The log since `loaded` once it holds the timing lines of every answer (the server writes them after the
    stream's last event, so they may come a moment after the run)."""
    deadline = time.monotonic() + timeout
    log = server.log_text()[loaded:]
    while len(_EVAL.findall(log)) < answers and time.monotonic() < deadline:
        time.sleep(0.05)
        log = server.log_text()[loaded:]
    return log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=5)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cache = Path(__file__).resolve().parent.parent / ".pytest_cache" / "d" / "gemma3-270m"
        cache.mkdir(parents=True, exist_ok=True)
        server = LlamaServer(model_path(cache), Path(folder) / "server.log")
        started = time.perf_counter()
        server.start()
        print(f"server ready in {time.perf_counter() - started:.1f} s")
        loaded = len(server.log_text())  # what loading printed is not a request
        try:
            app = asyncio.run(measure(server, args.answers, args.tokens))
            ours = server_figures(wait_for_timings(server, loaded, args.answers))
        finally:
            server.stop()
    print(f"{'answer':>6} {'app first':>10} {'server prompt':>14} {'app tok/s':>10} {'server tok/s':>13}")
    for number, ((first, rate), (prompt, server_rate)) in enumerate(zip(app, ours, strict=False)):
        print(f"{number:>6} {first * 1000:>8.0f} ms {prompt * 1000:>11.0f} ms {rate:>10.1f} {server_rate:>13.1f}")
    if app and ours:
        print(
            f"median: app first token {statistics.median(a[0] for a in app) * 1000:.0f} ms, server prompt eval "
            f"{statistics.median(s[0] for s in ours) * 1000:.0f} ms; app {statistics.median(a[1] for a in app):.1f} "
            f"tok/s, server {statistics.median(s[1] for s in ours):.1f} tok/s"
        )


if __name__ == "__main__":
    main()
