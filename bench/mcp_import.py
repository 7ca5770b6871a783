"""What the MCP SDK costs, and that the app does not pay it without servers.

Prints the median wall time of a fresh interpreter that imports (a) nothing, (b) `visindigo.engine.mcp` (the
manager: no SDK), (c) the SDK's client modules the first server start loads, and (d) (c) plus the OAuth client
— each minus (a). Run: .venv/bin/python bench/mcp_import.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CASES = {
    "python alone": "pass",
    "visindigo.engine.mcp (manager, no SDK)": "import visindigo.engine.mcp",
    "SDK client (first server start)": (
        "import mcp.client, mcp.client.stdio, mcp.client.streamable_http, mcp.client.sse, httpx2, mcp_types"
    ),
    "SDK client + OAuth": "import mcp.client, mcp.client.streamable_http, mcp.client.auth, httpx2",
}


def timed(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    medians = {name: statistics.median(timed(code) for _ in range(runs)) for name, code in CASES.items()}
    base = medians["python alone"]
    for name, value in medians.items():
        extra = "" if name == "python alone" else f"  (+{(value - base) * 1000:.0f} ms)"
        print(f"{name:42s} {value * 1000:7.0f} ms{extra}")


if __name__ == "__main__":
    main()
