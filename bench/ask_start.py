"""How fast `visindigo ask` gets its question out: from process start to the request reaching a loopback server.

Measured in one run, interleaved so that a busy machine slows every case alike:
- `python -c pass`: the interpreter alone, start to exit (the yardstick: the target is ask <= 3x this);
- httpx: a fresh interpreter that imports httpx and POSTs to the server, start to the request's arrival — plainly
  (`import httpx`, which loads httpx's command line and rich with it), and as the engine imports it (without);
- a request with the standard library's http.client (no asyncio, no httpx): the floor of any Python client;
- the import of the asynchronous HTTP stack alone (asyncio, httpx, httpcore, anyio's asyncio backend), start to
  exit: what any asyncio httpx client (the engine's adapters use one) pays before its first request;
- `visindigo ask "…"`: start to the chat request's arrival, with a config naming the loopback provider and its
  model (so no model list is fetched first) and a store that already exists (the usual case); the request leaves
  before asyncio and httpx are loaded (`ask_early`);
- `visindigo ask` to a provider on https (the loopback server with a certificate made here, trusted through
  SSL_CERT_FILE): the early send then loads the certificate store and shakes hands before the request leaves;
- the same with a proxy variable set (and NO_PROXY naming the loopback server): no early send, the run sends its
  request through httpx as it did before `ask_early` — the difference is what sending early gains;
- in this process: the SSL context with certifi's bundle that httpx builds for a client (a plain-http provider
  skips it).
Every case runs with bytecode caching on (as after an install), whatever PYTHONDONTWRITEBYTECODE says here.

Prints the median of each (wall clock and CPU) and the ratios. Run: .venv/bin/python bench/ask_start.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.llm_server import LLMServer, RecordedRequest, Reply, openai_stream

HTTPX_PLAIN = "import httpx; httpx.post({url!r}, json={{'model': 'm', 'messages': []}})"
HTTPX_LEAN = "import sys; sys.modules['httpx._main'] = None; " + HTTPX_PLAIN
#: What an asyncio httpx client loads before its first request (httpcore's async pool runs on anyio).
#: The floor of any Python client: the standard library's blocking HTTP client, no asyncio, no httpx.
STDLIB_REQUEST = (
    "import http.client, json; c = http.client.HTTPConnection({host!r}, {port}); "
    "c.request('POST', {path!r}, json.dumps({{'model': 'm', 'messages': []}}), "
    "{{'Content-Type': 'application/json'}}); "
    "c.getresponse().read()"
)
ASYNC_STACK = "import sys; sys.modules['httpx._main'] = None; import asyncio, httpx, httpcore, anyio._backends._asyncio"


class Arrivals:
    """The server's side: when each chat request arrived (perf_counter of this process)."""

    def __init__(self) -> None:
        self.arrived = threading.Event()
        self.at = 0.0

    def reply(self, request: RecordedRequest) -> Reply:
        self.at = time.perf_counter()
        self.arrived.set()
        return openai_stream(["ok"], usage=(3, 1), one_chunk=True)


def to_request(argv: list[str], arrivals: Arrivals, env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting `argv` to its request reaching the server, and the CPU seconds the process used in
    all (it runs to its end after the request)."""
    arrivals.arrived.clear()
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    if not arrivals.arrived.wait(60):
        process.kill()
        raise SystemExit(f"no request arrived from {argv}")
    cpu = reap(process)
    if process.returncode:
        raise SystemExit(f"{argv} failed with status {process.returncode}")
    return arrivals.at - started, cpu


def to_exit(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting `argv` to its end, and the CPU seconds it used."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL)
    cpu = reap(process)
    if process.returncode:
        raise SystemExit(f"{argv} failed with status {process.returncode}")
    return time.perf_counter() - started, cpu


def reap(process: subprocess.Popen[bytes]) -> float:
    """Wait for the process; the user + system CPU seconds it used. On a loaded machine (other processes on the
    cores) the wall-clock times stretch, and not alike: the CPU times barely move, so they are printed too."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def write_home(home: Path, url: str) -> None:
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        f'[providers.bench]\nkind = "openai"\nbase_url = "{url}"\napi_key_env = "BENCH_KEY"\n'
        'models = [{ id = "test-model" }]\n',
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    python = sys.executable
    arrivals = Arrivals()
    with (
        tempfile.TemporaryDirectory(prefix="ask-bench-") as folder,
        LLMServer() as server,
        LLMServer(tls=tls_context(Path(folder))) as secure,
    ):
        server.responder = secure.responder = arrivals.reply
        home = Path(folder)
        write_home(home, server.openai_url)
        secure_home = home / "https"
        write_home(secure_home, secure.openai_url)
        env = {**os.environ, "VISINDIGO_HOME": str(home), "BENCH_KEY": "sk-bench"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules compiled once, not at every start
        ask = [python, "-m", "visindigo", "ask", "Say ok."]
        # A proxy variable turns the early send off (ask_early); NO_PROXY keeps httpx direct to the loopback server
        no_early = {**env, "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1"}
        # the https server's certificate trusted as httpx trusts one (and so the early send: ask_early)
        secure_env = {**env, "VISINDIGO_HOME": str(secure_home), "SSL_CERT_FILE": str(home / "cert.pem")}
        address = urlsplit(server.openai_url + "/chat/completions")
        stdlib = STDLIB_REQUEST.format(host=address.hostname, port=address.port, path=address.path)
        cases = {
            "python -c pass": lambda: to_exit([python, "-c", "pass"], env),
            "httpx request (import httpx)": lambda: to_request(
                [python, "-c", HTTPX_PLAIN.format(url=server.openai_url + "/chat/completions")], arrivals, env
            ),
            "httpx request (without its CLI)": lambda: to_request(
                [python, "-c", HTTPX_LEAN.format(url=server.openai_url + "/chat/completions")], arrivals, env
            ),
            "http.client request (stdlib)": lambda: to_request([python, "-c", stdlib], arrivals, env),
            "async HTTP stack (import only)": lambda: to_exit([python, "-c", ASYNC_STACK], env),
            "visindigo ask": lambda: to_request(ask, arrivals, env),
            "ask, sent by the run": lambda: to_request(ask, arrivals, no_early),
            "visindigo ask (https)": lambda: to_request(ask, arrivals, secure_env),
        }
        for measure in cases.values():  # warm the file cache, and let the first ask create the store
            measure()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, measure in cases.items():
                times[name].append(measure())
    wall = {name: statistics.median(t for t, _ in values) for name, values in times.items()}
    cpu = {name: statistics.median(c for _, c in values) for name, values in times.items()}
    base, base_cpu = wall["python -c pass"], cpu["python -c pass"]
    print(f"{'':34s} {'to the request (wall)':>30s}   {'CPU, start to exit':>26s}")
    for name in cases:
        print(
            f"{name:34s} {wall[name] * 1000:8.1f} ms {wall[name] / base:5.1f}x pass   "
            f"{cpu[name] * 1000:8.1f} ms {cpu[name] / base_cpu:5.1f}x pass"
        )
    lean, stack, ask_time = (
        wall["httpx request (without its CLI)"],
        wall["async HTTP stack (import only)"],
        wall["visindigo ask"],
    )
    print(f"\nask / python -c pass = {ask_time / base:.2f} (target <= 3); CPU: {cpu['visindigo ask'] / base_cpu:.2f}")
    floor = wall["http.client request (stdlib)"]
    print(f"stdlib http.client request / python -c pass = {floor / base:.2f} (the floor of a Python client)")
    print(f"ask / lean httpx request = {ask_time / lean:.2f}; ask / async HTTP stack import = {ask_time / stack:.2f}")
    print(f"certificate bundle an https client loads (httpx.create_ssl_context): {bundle_ms():.1f} ms; "
          "a plain-http provider skips it")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def tls_context(folder: Path) -> ssl.SSLContext:
    """A server context with a certificate for 127.0.0.1 made here (openssl), written to folder/cert.pem."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", str(key), "-out",
         str(cert), "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def bundle_ms(runs: int = 15) -> float:
    """Median ms to build the SSL context httpx makes for a client (certifi's bundle parsed into it): what
    engine/providers/_httpx.py spares a provider on plain http (it verifies against an empty store instead)."""
    import httpx

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        httpx.create_ssl_context()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


if __name__ == "__main__":
    main()
