"""Streaming overhead: the same long SSE reply read bare with httpx, and through Dialog.run().

The loopback test server (tests/llm_server.py) runs in a child process, so it does not compete with the client
for the GIL, and serves one pre-rendered chat-completions stream of N one-token chunks. Two readers:

  (a) bare:  httpx text pieces split into lines the way the engine's SSE reader splits them (one str.split
             per received piece), `json.loads` of each data line, the delta's content picked out;
  (b) run:   an OpenAI-compatible Provider + Dialog.run(), collecting every event in a list
             (SSE parsing, think-tag check, typed parts, the dialog's buffers and events).

The stream is sent two ways: in 64 KB HTTP chunks (the body as fast as the socket takes it), and with one
HTTP chunk per SSE event, as real servers send a stream. Each reader is timed `--repeat` times per way,
alternating; the best time of each is reported with the ratio b/a (target: at most 1.5). Run from the
repository root:

    .venv/bin/python bench/stream_overhead.py [--chunks 50000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_stream
from visindigo.engine import Center, Dialog, ModelInfo, Provider, Role, StreamDelta

#: The model name that asks the server for one HTTP chunk per SSE event instead of 64 KB chunks.
PER_EVENT = "bench-model-per-event"


def serve(chunks: int, conn: Connection) -> None:
    """Child process: serve the same long stream to every POST until told to stop."""
    pieces = [f"tok{i % 10} " for i in range(chunks)]
    events = openai_stream(pieces, usage=(10, chunks)).chunks
    body = b"".join(events)
    size = 64 * 1024
    whole = Reply(chunks=[body[i : i + size] for i in range(0, len(body), size)])
    per_event = Reply(chunks=events)

    def respond(request: RecordedRequest) -> Reply:
        return per_event if (request.json or {}).get("model") == PER_EVENT else whole

    with LLMServer() as server:
        server.responder = respond
        conn.send((server.port, len(body)))
        conn.recv()  # wait for "stop"


async def bare(url: str, model: str) -> tuple[float, int]:
    """(a) httpx text, split into lines as the engine splits them, + json.loads: the least any client must do."""
    texts = 0
    async with httpx.AsyncClient(timeout=60) as client:
        started = time.perf_counter()
        body = {"model": model, "stream": True, "messages": [{"role": "user", "content": "go"}]}
        async with client.stream("POST", f"{url}/chat/completions", json=body) as response:
            pending = ""
            async for text in response.aiter_text():
                lines = (pending + text).split("\n")
                pending = lines.pop()
                for line in lines:
                    if not line.startswith("data: "):
                        continue
                    data = line[6:]
                    if data == "[DONE]":
                        break
                    chunk = json.loads(data)
                    choices = chunk.get("choices")
                    if choices and choices[0]["delta"].get("content"):
                        texts += 1
        return time.perf_counter() - started, texts


async def through_run(dialog: Dialog) -> tuple[float, int]:
    """(b) Dialog.run() over the OpenAI adapter, every event collected."""
    dialog.truncate_to(1)
    started = time.perf_counter()
    events = [event async for event in dialog.run()]
    elapsed = time.perf_counter() - started
    return elapsed, sum(1 for e in events if isinstance(e, StreamDelta))


async def measure(url: str, repeat: int, model: str) -> tuple[list[float], list[float], int, int]:
    center = Center()  # one provider and client for every run, as in the app
    center.add_provider(
        Provider("bench", kind="openai", base_url=url, default_model=model, models=[ModelInfo(model)])
    )
    dialog = center.create_dialog()
    dialog.model_id = model
    dialog.append_message(Role.USER, "go")
    bare_times, run_times = [], []
    await bare(url, model)  # warm up both paths (imports, first connection)
    await through_run(dialog)
    bare_count = run_count = 0
    for _ in range(repeat):
        elapsed, bare_count = await bare(url, model)
        bare_times.append(elapsed)
        elapsed, run_count = await through_run(dialog)
        run_times.append(elapsed)
    await center.aclose()
    return bare_times, run_times, bare_count, run_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    parent, child = multiprocessing.Pipe()
    process = multiprocessing.Process(target=serve, args=(args.chunks, child), daemon=True)
    process.start()
    port, size = parent.recv()
    url = f"http://127.0.0.1:{port}/v1"
    try:
        for label, model in (("64 KB HTTP chunks", "bench-model"), ("one HTTP chunk per event", PER_EVENT)):
            bare_times, run_times, bare_count, run_count = asyncio.run(measure(url, args.repeat, model))
            if bare_count != args.chunks or run_count != args.chunks:
                raise SystemExit(f"lost chunks: bare read {bare_count}, run read {run_count}, expected {args.chunks}")
            report(label, size, args.chunks, args.repeat, bare_times, run_times)
    finally:
        parent.send("stop")
        process.join(5)


def report(label: str, size: int, n: int, repeat: int, bare_times: list[float], run_times: list[float]) -> None:
    a, b = min(bare_times), min(run_times)
    print(f"stream: {n} chunks, {size / 1e6:.1f} MB, {label}, best of {repeat}")
    print(f"(a) bare httpx, engine's line split : {a:.3f} s  ({n / a:,.0f} chunks/s, {size / a / 1e6:.1f} MB/s)")
    print(f"(b) Dialog.run(), every event       : {b:.3f} s  ({n / b:,.0f} chunks/s, {size / b / 1e6:.1f} MB/s)")
    print(f"overhead ratio b/a                  : {b / a:.2f}  (target <= 1.5)")
    print(f"per chunk                           : bare {a / n * 1e6:.1f} us, run {b / n * 1e6:.1f} us\n")


if __name__ == "__main__":
    main()
