"""The engine side of a comparison: 1, 2 and 4 models answering at once, each streaming at 100 tokens/s.

The loopback test server (tests/llm_server.py) runs in a child process and streams, for every request, `--tokens`
one-token chunks `--rate` per second. The client runs `Comparison.run()` (one branch per model, every event
collected) and is timed by wall clock and by its own CPU time (`time.process_time`, this process only: the
server's work is not counted). Figures: wall time against the stream's own length (1.00 = no delay added), CPU
as a share of one core, and CPU per token. A last run puts two models on one provider that serves one request at
a time (`max_concurrent_runs = 1`): the wall time doubles, the answers come one after the other. The TUI's cost of
drawing the columns is measured by `bench/compare_stream.py` in the real app.

    .venv/bin/python bench/compare_engine.py [--tokens 300] [--rate 100]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_stream
from visindigo.engine import Center, ModelInfo, Provider, Role, StreamDelta, WaitingForProvider
from visindigo.engine.compare import Comparison, ModelChoice

MODELS = ("m1", "m2", "m3", "m4")


def serve(tokens: int, rate: float, conn: Connection) -> None:
    """Child process: every POST gets the same paced stream."""
    pieces = [f"w{i % 10} " for i in range(tokens)]

    def respond(_request: RecordedRequest) -> Reply:
        return openai_stream(pieces, usage=(10, tokens), delay_between=1.0 / rate)

    with LLMServer() as server:
        server.responder = respond
        conn.send(server.port)
        conn.recv()


def center_for(url: str, *, one_at_a_time: bool = False) -> Center:
    center = Center()
    settings = {"max_concurrent_runs": 1} if one_at_a_time else {}
    center.add_provider(Provider("bench", base_url=url, models=[ModelInfo(m) for m in MODELS], settings=settings))
    return center


async def compare(url: str, columns: int, *, one_at_a_time: bool = False) -> tuple[float, float, int, int]:
    """(wall s, CPU s, tokens received, waits) for one comparison of `columns` models."""
    center = center_for(url, one_at_a_time=one_at_a_time)
    dialog = center.create_dialog()
    choices = [ModelChoice("bench", model) for model in MODELS[:columns]]
    if columns == 1:  # one model alone: the plain run, the baseline
        dialog.append_message(Role.USER, "go")
        started, cpu = time.perf_counter(), time.process_time()
        events = [event async for event in dialog.run()]
        wall, used = time.perf_counter() - started, time.process_time() - cpu
        await center.aclose()
        return wall, used, sum(isinstance(e, StreamDelta) for e in events), 0
    comparison = Comparison.ask(center, dialog, choices, "go")
    started, cpu = time.perf_counter(), time.process_time()
    updates = [update async for update in comparison.run()]
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    await center.aclose()
    tokens = sum(isinstance(u.event, StreamDelta) for u in updates)
    waits = sum(isinstance(u.event, WaitingForProvider) for u in updates)
    return wall, used, tokens, waits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--rate", type=float, default=100.0)
    args = parser.parse_args()
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=serve, args=(args.tokens, args.rate, child), daemon=True)
    process.start()
    url = f"http://127.0.0.1:{parent.recv()}/v1"
    stream_seconds = args.tokens / args.rate
    try:
        asyncio.run(compare(url, 1))  # warm up: imports, the first connection
        print(f"{args.tokens} tokens per model at {args.rate:g} tok/s ({stream_seconds:.1f} s of stream each)")
        for columns in (1, 2, 4):
            wall, cpu, tokens, _ = asyncio.run(compare(url, columns))
            if tokens != columns * args.tokens:
                raise SystemExit(f"lost tokens: {tokens} of {columns * args.tokens}")
            print(
                f"{columns} column{'s' if columns > 1 else ' '}: wall {wall:.2f} s ({wall / stream_seconds:.2f}× the "
                f"stream), CPU {cpu:.3f} s = {cpu / wall * 100:.1f} % of a core, {cpu / tokens * 1e6:.0f} µs/token"
            )
        wall, cpu, tokens, waits = asyncio.run(compare(url, 2, one_at_a_time=True))
        print(
            f"2 columns, max_concurrent_runs = 1: wall {wall:.2f} s ({wall / stream_seconds:.2f}× the stream), "
            f"{waits} waited its turn"
        )
    finally:
        parent.send("stop")
        process.join(5)


if __name__ == "__main__":
    main()
