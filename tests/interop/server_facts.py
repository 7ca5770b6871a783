"""Print what llama.cpp's own server sends for the behaviours of issue 25 items 1-6, as raw HTTP (no engine).

    python -m tests.interop.server_facts        # starts the interop server (tests/interop/llama_server.py)

The figures in the issue's closing note come from this: the `/v1/models` entry (modalities, nothing about tools),
`/props` (`n_ctx` of a slot, the template's tool support), a stop that filled the context on both wires (finish
reason and usage), the Messages wire's usage when the prompt's start came from the server's cache, a named tool
choice in the object form against "required" with only that tool (what was called, what the server logged), and
on which streamed chunk usage arrives. Loopback only; the server is stopped at the end.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from tests.interop.llama_server import LlamaServer, model_path

TIME = {
    "name": "get_time",
    "description": "The current time in a time zone.",
    "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]},
}
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}


def openai_tool(spec: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": spec}


def anthropic_tool(spec: dict[str, Any]) -> dict[str, Any]:
    return {"name": spec["name"], "description": spec["description"], "input_schema": spec["parameters"]}


def show(title: str, value: Any) -> None:
    print(f"## {title}\n{json.dumps(value, indent=1, sort_keys=True) if not isinstance(value, str) else value}\n")


def called(choice: dict[str, Any]) -> list[str]:
    return [call["function"]["name"] for call in choice["message"].get("tool_calls") or []]


def new_log_lines(server: LlamaServer, before: int, pattern: str) -> list[str]:
    text = server.log_text()[before:]
    return sorted({line.strip()[:200] for line in text.splitlines() if re.search(pattern, line, re.I)})


def facts(server: LlamaServer) -> None:
    base, model = server.base_url, server.model_id
    client = httpx.Client(timeout=300, trust_env=False)
    entry = client.get(f"{base}/models").json()["data"][0]
    show("item 1/2: GET /v1/models, data[0]", entry)
    props = client.get(f"{server.address}/props").json()
    show("item 2/5: GET /props (trimmed)", {
        "default_generation_settings.n_ctx": props["default_generation_settings"]["n_ctx"],
        "total_slots": props["total_slots"],
        "modalities": props.get("modalities"),
        "chat_template_caps": props.get("chat_template_caps"),
    })  # fmt: skip

    question = "What is the weather in Paris?"
    for label, body in (
        ("named, object form", {"tools": [openai_tool(WEATHER), openai_tool(TIME)],
                                "tool_choice": {"type": "function", "function": {"name": "get_time"}}}),
        ("required, only that tool", {"tools": [openai_tool(TIME)], "tool_choice": "required"}),
    ):  # fmt: skip
        mark = len(server.log_text())
        reply = client.post(f"{base}/chat/completions", json={
            "model": model, "max_tokens": 48, "temperature": 0, "seed": 7,
            "messages": [{"role": "user", "content": question}], **body,
        }).json()  # fmt: skip
        choice = reply["choices"][0]
        show(f"item 5: chat completions, tool_choice {label}", {
            "tool_choice sent": body["tool_choice"],
            "tools offered": [t["function"]["name"] for t in body["tools"]],
            "tools called": called(choice), "finish_reason": choice["finish_reason"],
            "content": (choice["message"].get("content") or "")[:80],
            "server log": new_log_lines(server, mark, r"tool_choice|wrong type"),
        })  # fmt: skip
    for label, choice_sent, tools in (
        ("named {type: tool}, both tools", {"type": "tool", "name": "get_time"}, [WEATHER, TIME]),
        ("named {type: tool}, only that tool", {"type": "tool", "name": "get_time"}, [TIME]),
    ):
        mark = len(server.log_text())
        reply = client.post(f"{base}/messages", json={
            "model": model, "max_tokens": 48, "temperature": 0,
            "messages": [{"role": "user", "content": question}],
            "tools": [anthropic_tool(t) for t in tools], "tool_choice": choice_sent,
        }).json()  # fmt: skip
        show(f"item 5: Messages wire, tool_choice {label}", {
            "tools called": [b["name"] for b in reply.get("content", []) if b.get("type") == "tool_use"],
            "stop_reason": reply.get("stop_reason"),
            "server log": new_log_lines(server, mark, r"tool_choice|wrong type"),
        })  # fmt: skip

    filler = " ".join(["apple banana"] * 225)
    for wire in ("chat completions", "messages"):
        path = "/chat/completions" if wire == "chat completions" else "/messages"
        reply = client.post(f"{base}{path}", json={
            "model": model, "max_tokens": 200, "temperature": 0, "messages": [{"role": "user", "content": filler}],
        }).json()  # fmt: skip
        reason = reply["choices"][0]["finish_reason"] if "choices" in reply else reply.get("stop_reason")
        show(
            f"item 3: a stop that filled the context ({wire}), max_tokens 200, slot n_ctx {server.slot_context}",
            {"finish/stop reason": reason, "usage": reply.get("usage")},
        )

    fruits = "Here is a list of fruits: " + ", ".join(["apple", "pear", "plum", "fig"] * 20) + "."
    dialog: list[dict[str, Any]] = [{"role": "user", "content": fruits}]
    first = client.post(f"{base}/messages", json={"model": model, "max_tokens": 8, "temperature": 0,
                                                   "messages": dialog}).json()  # fmt: skip
    show("item 4: Messages wire, a dialog's first question", first.get("usage"))
    said = "".join(block.get("text", "") for block in first.get("content", []))
    dialog += [{"role": "assistant", "content": said}, {"role": "user", "content": "And which is the sweetest?"}]
    body = {"model": model, "max_tokens": 8, "temperature": 0, "messages": dialog}
    with client.stream("POST", f"{base}/messages", json={**body, "stream": True}) as stream:
        usages = [
            (event.get("type"), event.get("usage") or (event.get("message") or {}).get("usage"))
            for line in stream.iter_lines()
            if line.startswith("data: ")
            for event in [json.loads(line[6:])]
            if "usage" in event or "usage" in (event.get("message") or {})
        ]
    show("item 4/6: Messages wire, the second question streamed: the events carrying usage", usages)
    # a new connection: llama-server closes the one a stream was served on, without saying so
    again = httpx.post(f"{base}/chat/completions", json={**body, "max_tokens": 1}, timeout=300, trust_env=False).json()
    show("item 4: the same three messages over chat completions", again.get("usage"))

    with client.stream("POST", f"{base}/chat/completions", json={
        "model": model, "max_tokens": 6, "temperature": 0, "stream": True,
        "stream_options": {"include_usage": True}, "messages": [{"role": "user", "content": "Say hello."}],
    }) as stream:  # fmt: skip
        chunks = [json.loads(line[6:]) for line in stream.iter_lines() if line.startswith("data: {")]
    with_usage = [i for i, chunk in enumerate(chunks) if chunk.get("usage")]
    last = chunks[with_usage[-1]] if with_usage else {}
    show(
        "item 6: chat completions streamed with include_usage",
        {"chunks": len(chunks), "chunks carrying usage": with_usage, "usage": last.get("usage")},
    )
    client.close()


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="server-facts-"))
    cache = Path(".pytest_cache/d/gemma3-270m")
    server = LlamaServer(model_path(cache if cache.is_dir() else folder), folder / "server.log")
    server.start()
    try:
        facts(server)
    finally:
        server.stop()
    print(f"(server log: {server.log_path})", file=sys.stderr)


if __name__ == "__main__":
    main()
