"""Issue 11 §2 and §5: keys that cannot be sent, redaction of encoded keys, type-checked stream fields, the
tool-call cap. Real HTTP on 127.0.0.1 (tests/llm_server.py) and real config files."""

from __future__ import annotations

import base64
import json
import urllib.parse
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.llm_server import LLMServer, anthropic_stream, openai_chunk, openai_stream, sse_reply
from visindigo.engine import Center, Dialog, Provider, Role, RunFailed, RunFinished
from visindigo.engine.capability import Capability
from visindigo.engine.commands import command
from visindigo.engine.config import load_config
from visindigo.engine.provider import ModelInfo
from visindigo.engine.providers.base import FinishPart, ToolCallPart
from visindigo.engine.providers.http import transport_error
from visindigo.engine.providers.scripted import scripted_provider
from visindigo.engine.secrets import redact

KEY = "sk-proj-A1b2C3d4E5f6G7h8I9j0KkLlMmNn"
ALL = Capability.TEXT | Capability.TOOLS


async def run(dialog: Dialog) -> list[Any]:
    return [event async for event in dialog.run()]


def provider(server: LLMServer, kind: str, **kwargs: Any) -> Provider:
    url = server.anthropic_url if kind == "anthropic" else server.openai_url
    return Provider("p", kind=kind, name="P", base_url=url, models=[ModelInfo("m", capabilities=ALL)],
                    settings={"retry_base_delay": 0.01, "max_retries": 0}, **kwargs)  # fmt: skip


def dialog_on(prov: Provider) -> Dialog:
    center = Center()
    center.add_provider(prov)
    dialog = center.create_dialog()
    dialog.append_message(Role.USER, "hi")
    return dialog


# --- §2 keys ----------------------------------------------------------------------------------------------------


async def test_a_key_with_a_line_break_in_the_environment_is_refused_naming_the_variable(
    llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTILE_KEY", KEY[:20] + "\n" + KEY[20:])
    dialog = dialog_on(provider(llm_server, "openai", api_key_env="HOSTILE_KEY"))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed)
    message = events[-1].message
    assert "HOSTILE_KEY" in message and "control character" in message
    assert not any(KEY[i : i + 6] in message for i in range(len(KEY) - 6))
    assert llm_server.requests == []  # nothing was sent


def test_keys_with_control_characters_in_the_files_are_refused_naming_file_and_key_path(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[providers.a]\nkind = "openai"\nbase_url = "http://127.0.0.1:1/v1"\n'
                      f'api_key = "{KEY[:10]}\\u001b]52;c;x\\u0007{KEY[10:]}"\n'
                      '[providers.b]\nkind = "openai"\nbase_url = "http://127.0.0.1:1/v1"\n')  # fmt: skip
    credentials = tmp_path / "credentials.toml"
    credentials.write_text(f'[providers.b]\napi_key = "{KEY}\\r\\nX-Evil: 1"\n')
    credentials.chmod(0o600)
    loaded, problems = load_config(config)
    texts = [str(p) for p in problems]
    assert any(str(config) in t and "providers.a.api_key" in t and "control character" in t for t in texts)
    assert any(str(credentials) in t and "providers.b.api_key" in t for t in texts)
    assert not any(KEY[:10] in t or KEY[-10:] in t for t in texts)
    assert "b" not in loaded.credentials and "api_key" not in loaded.data["providers"]["a"]


@pytest.mark.parametrize(
    "echo",
    [
        repr(KEY + "\n")[1:-1],  # what httpx/h11 print: the bytes repr-escaped
        repr((KEY[:20] + "\n" + KEY[20:]).encode()),
        urllib.parse.quote(KEY, safe=""),
        base64.b64encode(f"user:{KEY}".encode()).decode(),
        base64.b64encode(f":{KEY}".encode()).decode(),
        json.dumps(KEY + "\t")[1:-1],
        KEY[:9] + "****" + KEY[-6:],
    ],
)
def test_redaction_finds_the_key_in_escaped_and_encoded_forms(echo: str) -> None:
    text = redact(f"server said: Illegal header value b'Bearer {echo}' (Basic {echo})", KEY)
    assert not any(KEY[i : i + 8] in text for i in range(len(KEY) - 8)), text
    for form in (base64.b64encode(f"user:{KEY}".encode()).decode(), urllib.parse.quote(KEY, safe="")):
        assert form not in text
    assert redact("nothing to hide here", KEY) == "nothing to hide here"


def test_header_values_never_reach_a_transport_error_message() -> None:
    prov = Provider("p", base_url="http://127.0.0.1:1/v1", api_key=KEY)
    error = httpx.LocalProtocolError(f"Illegal header value b'Bearer {KEY[:20]}\\n{KEY[20:]}'")
    message = transport_error(error, prov)
    assert "header" in message and KEY[:8] not in message and KEY[-8:] not in message


async def test_a_header_with_a_control_character_is_refused_by_name(llm_server: LLMServer) -> None:
    dialog = dialog_on(provider(llm_server, "openai", headers={"X-Token": "abc\ndef"}))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and "'X-Token'" in events[-1].message
    assert "abc" not in events[-1].message and llm_server.requests == []


# --- §5 stream fields -------------------------------------------------------------------------------------------


async def test_an_anthropic_block_index_that_is_not_an_integer_fails_naming_the_event(llm_server: LLMServer) -> None:
    reply = anthropic_stream(["partial "], stop=False)
    bad = {"type": "content_block_delta", "index": {"x": 1}, "delta": {"type": "text_delta", "text": "more"}}
    reply.chunks.insert(-1, f"event: content_block_delta\ndata: {json.dumps(bad)}\n\n".encode())
    llm_server.queue(reply)
    dialog = dialog_on(provider(llm_server, "anthropic", api_key=KEY))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed)
    assert "'content_block_delta'" in events[-1].message and "index" in events[-1].message
    assert dialog.last_message.content == "partial " and dialog.last_message.meta["status"] == "incomplete"


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({"type": "content_block_start", "index": 1, "content_block": "text"}, "content_block"),
        ({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}}, "delta.text"),
        ({"type": "message_delta", "delta": {"stop_reason": ["end"]}}, "delta.stop_reason"),
        ({"type": "content_block_stop", "index": "0"}, "index"),
    ],
)
async def test_every_anthropic_field_is_type_checked(llm_server: LLMServer, event: dict[str, Any], field: str) -> None:
    reply = anthropic_stream(["kept"], stop=False)
    reply.chunks.insert(-1, f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
    llm_server.queue(reply)
    dialog = dialog_on(provider(llm_server, "anthropic", api_key=KEY))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and field in events[-1].message, events[-1]
    assert dialog.last_message.content == "kept"


@pytest.mark.parametrize(
    ("delta", "field"),
    [
        ({"tool_calls": [{"index": {"a": 1}, "id": "c", "function": {"name": "f", "arguments": ""}}]}, "index"),
        ({"tool_calls": [{"index": 0, "id": "c", "function": "nope"}]}, "function"),
        ({"tool_calls": "all of them"}, "tool_calls"),
        ({"content": {"text": "x"}}, "delta.content"),
        ({"reasoning_content": 7}, "delta.reasoning"),
    ],
)
async def test_openai_stream_fields_are_type_checked(llm_server: LLMServer, delta: dict[str, Any], field: str) -> None:
    llm_server.queue(sse_reply([openai_chunk({"content": "kept"}), openai_chunk(delta), "data: [DONE]\n\n"]))
    dialog = dialog_on(provider(llm_server, "openai", api_key=KEY))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and field in events[-1].message, events[-1]
    assert "chunk" in events[-1].message and dialog.last_message.content == "kept"


async def test_a_well_formed_openai_stream_still_works(llm_server: LLMServer) -> None:
    llm_server.queue(openai_stream(["fine"]))
    dialog = dialog_on(provider(llm_server, "openai", api_key=KEY))
    assert isinstance((await run(dialog))[-1], RunFinished)


# --- §5 the tool-call cap ---------------------------------------------------------------------------------------

ran: list[int] = []


@command()
def note(n: int) -> str:
    """Remember a number."""
    ran.append(n)
    return "ok"


@pytest.mark.parametrize("cap", [None, 5])
async def test_calls_over_the_cap_get_a_result_saying_so_and_the_model_continues(cap: int | None) -> None:
    calls = [ToolCallPart(f"c{i}", "note", json.dumps({"n": i})) for i in range(2000)]
    center = Center()
    center.add_provider(scripted_provider([[*calls, FinishPart("tool_calls")], [FinishPart("stop")]]))
    if cap is not None:
        center.settings["max_tool_calls"] = cap
    expected = cap or 32
    dialog = center.create_dialog()
    dialog.add_function(note)
    dialog.append_message(Role.USER, "go")
    ran.clear()
    events = await run(dialog)
    assert isinstance(events[-1], RunFinished)
    assert ran == list(range(expected))
    results = [m for m in dialog.messages if m.role is Role.TOOL]
    assert [m.tool_call_id for m in results] == [f"c{i}" for i in range(2000)]  # every call answered, in order
    over = results[expected:]
    assert all("not run" in m.content and f"at most {expected}" in m.content for m in over)
    assert all(json.loads(m.content)["error"] for m in over)
    assert not any("not run" in m.content for m in results[:expected])


# --- §1 where outside text enters -------------------------------------------------------------------------------


async def test_model_ids_and_error_bodies_from_a_server_enter_cleaned(llm_server: LLMServer) -> None:
    from tests.hostile_text import HOSTILE, leaks
    from tests.llm_server import error_reply, json_reply
    from visindigo.engine.providers import list_models

    llm_server.models_reply = json_reply({"data": [{"id": f"gpt-{HOSTILE}", "display_name": f"GPT {HOSTILE}"}]})
    prov = Provider("p", kind="openai", base_url=llm_server.openai_url, settings={"max_retries": 0})
    [model] = await list_models(prov)
    assert model.id.startswith("gpt-OSC 52") and not leaks(model.id.encode()) and not leaks(model.name.encode())
    llm_server.queue(error_reply(400, f"bad request {HOSTILE}"))
    dialog = dialog_on(provider(llm_server, "openai", api_key=KEY))
    events = await run(dialog)
    assert isinstance(events[-1], RunFailed) and "bad request" in events[-1].message
    assert not leaks(events[-1].message.encode()) and not leaks(str(dialog.last_message.meta).encode())
