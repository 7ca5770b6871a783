"""A real HTTP server on 127.0.0.1 that speaks like an LLM endpoint, for tests and benchmarks.

It serves OpenAI chat-completions SSE (`POST /v1/chat/completions`), Anthropic Messages SSE
(`POST /v1/messages`), and a model list (`GET /v1/models`), all from scripts: each POST takes the next queued
`Reply` (or asks `responder`), so a test states exactly what the "model" answers — including broken answers:
a stream cut in the middle of a JSON line, an invalid data line, an error event, no `[DONE]`, no finish reason,
HTTP error bodies in the shapes of OpenAI, vLLM, Ollama, OpenRouter and Anthropic, 429 with `Retry-After`,
and a slow first byte or slow chunks for timeouts. Every request is recorded (method, path, headers, JSON
body) so a test can assert what the client sent. Only loopback is used; the port is chosen by the OS.

Use it through the `llm_server` fixture (tests/conftest.py); the server runs in a thread, so it works from sync
and async tests alike:

    from tests.llm_server import openai_stream, error_reply

    async def test_hello(llm_server):
        llm_server.queue(openai_stream(["Hel", "lo"], usage=(5, 2)))
        center = Center()
        center.add_provider(
            Provider("t", kind="openai", base_url=llm_server.openai_url, api_key="sk-test",
                     models=[ModelInfo("m")])
        )
        dialog = center.create_dialog()
        dialog.append_message(Role.USER, "hi")
        events = [e async for e in dialog.run()]
        assert dialog.last_message.content == "Hello"
        assert llm_server.requests[0].json["messages"][-1] == {"role": "user", "content": "hi"}
        assert llm_server.requests[0].headers["authorization"] == "Bearer sk-test"

Builders: `openai_stream`, `openai_tool_call`, `openai_chunk`, `anthropic_stream`, `error_reply`, `json_reply`,
`sse_reply` (raw events). Outside pytest: `with LLMServer() as server: ...`.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "LLMServer",
    "RecordedRequest",
    "Reply",
    "anthropic_stream",
    "error_reply",
    "json_reply",
    "openai_chunk",
    "openai_stream",
    "openai_tool_call",
    "sse_reply",
]


@dataclass
class Reply:
    """One scripted HTTP response.

    `chunks` are written one by one (each flushed as an HTTP chunk) with `delay_between` seconds between them,
    after `delay_first_byte` seconds of silence. With `cut=True` the connection is closed abruptly after the
    last chunk, without the end of the chunked body — what a crashed or disconnected server looks like.
    With `drop=True` the request is read and the connection closed without a byte of response: what a client
    sees when it sends on a kept-alive connection the server had already closed.
    """

    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    delay_first_byte: float = 0.0
    delay_between: float = 0.0
    cut: bool = False
    drop: bool = False


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    json: Any = None


# --- builders ---------------------------------------------------------------------------------------------


def sse_reply(events: Iterable[dict[str, Any] | str | tuple[str, dict[str, Any]]], **kwargs: Any) -> Reply:
    """A stream of SSE events: a dict becomes `data: <json>`, ("name", dict) adds `event: name`, and a str
    is written exactly as given (for comments, `data: [DONE]`, invalid lines, half lines)."""
    chunks = []
    for event in events:
        if isinstance(event, str):
            chunks.append(event.encode())
        elif isinstance(event, tuple):
            name, data = event
            chunks.append(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        else:
            chunks.append(f"data: {json.dumps(event)}\n\n".encode())
    return Reply(chunks=chunks, **kwargs)


def openai_chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    *,
    usage: dict[str, Any] | None = None,
    choices: bool = True,
    model: str = "test-model",
) -> dict[str, Any]:
    """One `chat.completion.chunk` object."""
    chunk: dict[str, Any] = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1, "model": model}
    chunk["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}] if choices else []
    if usage is not None:
        chunk["usage"] = usage
    return chunk


def openai_tool_call(call_id: str, name: str, argument_pieces: Sequence[str], index: int = 0) -> list[dict[str, Any]]:
    """The chunks of one streamed tool call: id and name first, then the arguments in pieces."""
    first = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
    chunks = [openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]})]
    for piece in argument_pieces:
        chunks.append(openai_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    return chunks


def openai_stream(
    text: Sequence[str] = (),
    *,
    reasoning: Sequence[str] = (),
    reasoning_field: str = "reasoning_content",
    tool_calls: Sequence[dict[str, Any]] = (),
    finish: str | None = "stop",
    usage: tuple[int, int] | None = None,
    done: bool = True,
    before: Sequence[dict[str, Any] | str] = (),
    after: Sequence[dict[str, Any] | str] = (),
    one_chunk: bool = False,
    **kwargs: Any,
) -> Reply:
    """A chat-completions stream: reasoning pieces, text pieces, tool-call chunks (see `openai_tool_call`),
    the finish reason (None: no finish reason at all), a usage chunk, `[DONE]` (or not).

    `before` / `after` insert raw events around the content; `one_chunk` writes everything in one HTTP chunk
    (fast, for benchmarks)."""
    events: list[dict[str, Any] | str] = [openai_chunk({"role": "assistant", "content": ""}), *before]
    events += [openai_chunk({reasoning_field: piece}) for piece in reasoning]
    events += [openai_chunk({"content": piece}) for piece in text]
    events += list(tool_calls)
    events += after
    if finish is not None:
        events.append(openai_chunk({}, finish))
    if usage is not None:
        prompt, completion = usage
        totals = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        events.append(openai_chunk(usage=totals, choices=False))
    if done:
        events.append("data: [DONE]\n\n")
    reply = sse_reply(events, **kwargs)
    if one_chunk:
        reply.chunks = [b"".join(reply.chunks)]
    return reply


def anthropic_stream(
    text: Sequence[str] = (),
    *,
    thinking: Sequence[str] = (),
    signature: str = "sig-test",
    tool_uses: Sequence[tuple[str, str, Sequence[str]]] = (),
    stop_reason: str = "end_turn",
    usage: tuple[int, int] = (10, 5),
    stop: bool = True,
    ping: bool = True,
    error: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Reply:
    """A Messages stream: a thinking block (with `signature`), a text block, tool_use blocks given as
    (id, name, json pieces), message_delta with `stop_reason`, message_stop (unless `stop=False`).
    `error` is sent as an `event: error` right after the text, and the stream ends there."""
    events: list[tuple[str, dict[str, Any]] | str] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_test",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude-test",
                    "stop_reason": None,
                    "usage": {"input_tokens": usage[0], "output_tokens": 1},
                },
            },
        )
    ]
    index = 0
    if ping:
        events.append(("ping", {"type": "ping"}))
    if thinking:
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "thinking", "thinking": ""}},
            )
        )
        for piece in thinking:
            delta = {"type": "thinking_delta", "thinking": piece}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        delta = {"type": "signature_delta", "signature": signature}
        events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if text:
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
            )
        )
        for piece in text:
            delta = {"type": "text_delta", "text": piece}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        if error is not None:
            events.append(("error", {"type": "error", "error": error}))
            return sse_reply(events, **kwargs)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for call_id, name, pieces in tool_uses:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": block}))
        for piece in pieces:
            delta = {"type": "input_json_delta", "partial_json": piece}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": usage[1]},
            },
        )
    )
    if stop:
        events.append(("message_stop", {"type": "message_stop"}))
    return sse_reply(events, **kwargs)


_ERROR_SHAPES: dict[str, Callable[[int, str], Any]] = {
    "openai": lambda status, message: {
        "error": {"message": message, "type": "invalid_request_error", "param": None, "code": str(status)}
    },
    "vllm": lambda status, message: {
        "object": "error",
        "message": message,
        "type": "BadRequestError",
        "param": None,
        "code": status,
    },
    "ollama": lambda status, message: {"error": message},
    "openrouter": lambda status, message: {
        "error": {"code": status, "message": message, "metadata": {"provider_name": "Upstream"}}
    },
    "anthropic": lambda status, message: {"type": "error", "error": {"type": "api_error", "message": message}},
    "text": lambda status, message: message,
}


def error_reply(status: int, message: str, *, shape: str = "openai", retry_after: str | None = None) -> Reply:
    """An HTTP error with a JSON body in the named provider's shape ("text": a plain-text body)."""
    body = _ERROR_SHAPES[shape](status, message)
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    if shape == "text":
        return Reply(status=status, chunks=[body.encode()], content_type="text/plain", headers=headers)
    return Reply(status=status, chunks=[json.dumps(body).encode()], content_type="application/json", headers=headers)


def json_reply(document: Any, status: int = 200) -> Reply:
    return Reply(status=status, chunks=[json.dumps(document).encode()], content_type="application/json")


# --- the server -------------------------------------------------------------------------------------------


class LLMServer:
    """The scripted endpoint. `queue(...)` replies for POSTs; `models` (or `models_reply`) for GET .../models."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        #: A server-side TLS context: the server speaks https (its URLs say so).
        self.tls = tls
        self.requests: list[RecordedRequest] = []
        self.models: list[str] = ["test-model"]
        self.models_reply: Reply | None = None
        self.responder: Callable[[RecordedRequest], Reply] | None = None
        #: Fixed answers by (method, path), asked before the queue: see `route`.
        self.routes: dict[tuple[str, str], Reply | Callable[[RecordedRequest], Reply]] = {}
        #: POSTs being answered right now, and the most there ever were at once (for concurrency limits).
        self.in_flight = 0
        self.max_in_flight = 0
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> LLMServer:
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        if self.tls is not None:
            self._httpd.socket = self.tls.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="llm-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start the server first"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"{'https' if self.tls is not None else 'http'}://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        """The base URL an OpenAI-compatible provider is configured with."""
        return f"{self.url}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"{self.url}/v1"

    # scripting

    def queue(self, *replies: Reply) -> LLMServer:
        with self._lock:
            self._replies.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies queued and not yet served."""
        with self._lock:
            return len(self._replies)

    def route(self, method: str, path: str, reply: Reply | Callable[[RecordedRequest], Reply]) -> LLMServer:
        """Answer every `method` request to `path` (query string ignored) with `reply`, or what it returns for the
        request: the side endpoints servers have besides chat (llama.cpp `/props` and `/tokenize`, Ollama
        `/api/show`, LM Studio `/api/v0/models`, Anthropic `/v1/messages/count_tokens`)."""
        with self._lock:
            self.routes[(method.upper(), path)] = reply
        return self

    def _reply_for(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            routed = self.routes.get((request.method, request.path.split("?", 1)[0]))
            if isinstance(routed, Reply):
                return routed
            if routed is None and request.method == "GET" and request.path.rstrip("/").endswith("/models"):
                if self.models_reply is not None:
                    return self.models_reply
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in self.models]
                return json_reply({"object": "list", "data": data})
            if routed is None and self._replies:
                return self._replies.popleft()
        if routed is not None:
            return routed(request)
        if self.responder is not None:
            return self.responder(request)
        return error_reply(500, f"test server: no scripted reply for {request.method} {request.path}")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (cancel, timeout, a closed pool) is normal here, not worth a traceback."""


class _Handler(BaseHTTPRequestHandler):
    owner: LLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        owner = self.owner
        with owner._lock:
            owner.in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
        try:
            self._serve()
        finally:
            with owner._lock:
                owner.in_flight -= 1

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            document = json.loads(body) if body else None
        except ValueError:
            document = None
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = RecordedRequest(self.command, self.path, headers, body, document)
        reply = self.owner._reply_for(request)
        if reply.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.delay_first_byte:
            time.sleep(reply.delay_first_byte)
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            for number, chunk in enumerate(reply.chunks):
                if number and reply.delay_between:
                    time.sleep(reply.delay_between)
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
            if reply.cut:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True  # the client went away (a cancel, a timeout): nothing to clean up
