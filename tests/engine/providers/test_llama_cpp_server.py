"""llama.cpp's own server (llama-server) as the engine meets it, from responses recorded from the real one
(xllamacpp's build, Gemma 3 270M) and served on loopback: its model list, `/props`, `/health` while loading, a
named tool choice, a length stop that was the context filling, a tool call cut by the output limit.

The same behaviours are tested against the real server in tests/interop (marker `llama`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.interop.tools import get_time, get_weather
from tests.llm_server import LLMServer, RecordedRequest, Reply, error_reply, json_reply, openai_stream
from visindigo.engine import Capability, Center, Message, ModelInfo, Notice, Provider, Role, RunFailed
from visindigo.engine.providers import ChatRequest, UsagePart
from visindigo.engine.providers import anthropic as anthropic_wire
from visindigo.engine.providers import openai as openai_wire
from visindigo.engine.providers.capabilities import from_listing
from visindigo.engine.providers.discovery import DiscoveredProvider, probe_url
from visindigo.engine.stop_reason import CONTEXT_FULL, stop_reason

#: llama-server's /v1/models entry (trimmed): modalities, and nothing about tools.
LISTING = {
    "object": "list",
    "data": [
        {
            "id": "gemma-a",
            "aliases": ["gemma-a", "gemma-b"],
            "object": "model",
            "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
            "owned_by": "llamacpp",
            "meta": {"n_ctx": 512, "n_ctx_train": 32768},
        }
    ],
}


def props(*, supports_tools: bool, vision: bool = False) -> dict[str, Any]:
    """llama-server's /props (trimmed to what is read, plus the keys discovery tells it by)."""
    return {
        "default_generation_settings": {"n_ctx": 512, "params": {"chat_format": "Content-only"}},
        "total_slots": 2,
        "model_alias": "gemma-a",
        "modalities": {"vision": vision, "video": False, "audio": False},
        "chat_template_caps": {"supports_tools": supports_tools, "supports_tool_calls": supports_tools},
        "build_info": "b0-unknown",
    }


def serve_props(llm_server: LLMServer, document: dict[str, Any], *answers: Reply) -> None:
    """/props answers `document`; the POSTs get `answers` in order (not queued: a GET would take a queued one)."""
    pending = list(answers)

    def respond(request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path.split("?")[0] == "/props":
            return json_reply(document)
        if request.method == "POST" and pending:
            return pending.pop(0)
        return error_reply(404, "File Not Found")

    llm_server.responder = respond


def chat_posts(llm_server: LLMServer) -> list[dict[str, Any]]:
    return [r.json for r in llm_server.requests if r.method == "POST" and r.json is not None]


async def test_a_list_of_input_modalities_says_nothing_about_tools(llm_server: LLMServer) -> None:
    """Issue 25 item 1: `input_modalities: ["text"]` made the model text-only and the run dropped the tools."""
    llm_server.models_reply = json_reply(LISTING)
    llm_server.queue(openai_stream(["It is noon."], usage=(40, 4)))
    center = Center()
    center.add_provider(Provider("byhand", base_url=llm_server.openai_url))
    dialog = center.create_dialog()
    dialog.add_function(get_time)
    dialog.parameters = {"tool_choice": "required"}
    dialog.append_message(Role.USER, "time?")
    events = [event async for event in dialog.run()]
    assert not [e for e in events if isinstance(e, RunFailed | Notice)]
    [body] = chat_posts(llm_server)
    assert [tool["function"]["name"] for tool in body["tools"]] == ["get_time"] and body["tool_choice"] == "required"
    model = center.get_provider("byhand").get_model("gemma-a")  # type: ignore[union-attr]
    assert model is not None and model.capabilities == Capability.TEXT | Capability.TOOLS
    assert model.extra["capability_sources"] == {"text": "server: /models", "tools": "assumed"}


def test_a_listing_with_supported_parameters_still_says_what_it_says() -> None:
    told = from_listing(
        ModelInfo("m"),
        {"supported_parameters": ["temperature"], "architecture": {"input_modalities": ["text", "image"]}},
    )
    assert told.capabilities == Capability.TEXT | Capability.IMAGE  # OpenRouter: no "tools" there means none
    assert from_listing(ModelInfo("n"), {"id": "n"}).extra == {}


async def test_a_llama_server_whose_template_takes_no_tools_says_so_once(llm_server: LLMServer) -> None:
    """/props `chat_template_caps.supports_tools: false` (a template that renders no tools) turns tools off, and
    the dialog is told once, with the reason and the forced choice that was not sent."""
    llm_server.models_reply = json_reply(LISTING)
    serve_props(llm_server, props(supports_tools=False), openai_stream(["one"]), openai_stream(["two"]))
    center = Center()
    center.add_provider(
        Provider("llamacpp", name="llama.cpp", base_url=llm_server.openai_url, settings={"server": "llama.cpp"})
    )
    dialog = center.create_dialog()
    dialog.add_function(get_time)
    dialog.parameters = {"tool_choice": "get_time"}
    notices = []
    for question in ("time?", "again?"):
        dialog.append_message(Role.USER, question)
        notices += [e.text async for e in dialog.run() if isinstance(e, Notice)]
    [notice] = notices
    assert "takes no tools (server: llama.cpp /props" in notice and "'get_time'" in notice
    assert all("tools" not in body and "tool_choice" not in body for body in chat_posts(llm_server))
    props_asked = [r.path for r in llm_server.requests if r.path.startswith("/props")]
    assert props_asked == ["/props?model=gemma-a"]


async def test_llama_server_props_say_tools_and_images(llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply(LISTING)
    serve_props(llm_server, props(supports_tools=True, vision=True))
    found = await probe_url(llm_server.openai_url)
    assert isinstance(found, DiscoveredProvider) and found.settings == {"server": "llama.cpp"}
    provider = await found.learn_capabilities()
    assert provider.max_concurrent_runs == 0  # it has slots and queues the rest: no one-at-a-time limit
    [model] = provider.models
    assert model.capabilities == Capability.TEXT | Capability.TOOLS | Capability.IMAGE
    assert model.extra["capability_sources"]["tools"] == "server: llama.cpp /props"


async def test_llama_server_is_told_by_its_props_when_the_listing_does_not_say(llm_server: LLMServer) -> None:
    """A proxy in front (or another build) lists another `owned_by`: /props still says llama-server."""
    listing = json.loads(json.dumps(LISTING))
    listing["data"][0]["owned_by"] = "proxy"
    llm_server.models_reply = json_reply(listing)
    serve_props(llm_server, props(supports_tools=True))
    found = await probe_url(llm_server.openai_url)
    assert isinstance(found, DiscoveredProvider)
    assert (found.id, found.settings) == ("llamacpp", {"server": "llama.cpp"})
    assert "llama-cpp-python" not in found.name and "max_concurrent_runs" not in found.settings


async def test_an_unknown_server_is_not_taken_for_llama_server(llm_server: LLMServer) -> None:
    llm_server.models_reply = json_reply({"data": [{"id": "m", "owned_by": "someone"}]})
    llm_server.responder = lambda request: error_reply(404, "not found")
    found = await probe_url(llm_server.openai_url)
    assert isinstance(found, DiscoveredProvider) and found.settings == {}


async def test_a_server_still_loading_its_model_says_so(llm_server: LLMServer) -> None:
    llm_server.models_reply = error_reply(503, "Loading model")
    reason = await probe_url(llm_server.openai_url)
    assert isinstance(reason, str) and "HTTP 503 (Loading model)" in reason


def tool_request(choice: str, *, first_round: bool = True) -> ChatRequest:
    return ChatRequest(
        model=ModelInfo("gemma-a"),
        messages=[Message(Role.USER, "weather in Paris?")],
        tools=[get_weather.declaration(), get_time.declaration()],
        parameters={"tool_choice": choice},
        first_round=first_round,
    )


def test_a_named_tool_choice_goes_to_llama_cpp_as_required_with_only_that_tool() -> None:
    """Issue 25 item 5: llama-server logs "Wrong type supplied for parameter 'tool_choice'" for the object form
    and answers as if "auto"; on /v1/messages it takes {"type": "tool"} as any tool."""
    body = openai_wire.build_body(tool_request("get_time"), named_tool_choice=False)
    assert body["tool_choice"] == "required" and [t["function"]["name"] for t in body["tools"]] == ["get_time"]
    later = openai_wire.build_body(tool_request("get_time", first_round=False), named_tool_choice=False)
    assert later["tool_choice"] == "auto" and len(later["tools"]) == 2
    usual = openai_wire.build_body(tool_request("get_time"))
    assert usual["tool_choice"] == {"type": "function", "function": {"name": "get_time"}} and len(usual["tools"]) == 2
    messages = anthropic_wire.build_body(tool_request("get_time"), named_tool_choice=False)
    assert messages["tool_choice"] == {"type": "tool", "name": "get_time"}
    assert [t["name"] for t in messages["tools"]] == ["get_time"]
    assert len(anthropic_wire.build_body(tool_request("get_time")).get("tools", [])) == 2


@pytest.mark.parametrize(
    ("reason", "usage", "limit", "window", "expected"),
    [
        ("length", UsagePart(478, 34), 200, 0, CONTEXT_FULL),  # stopped below the request's limit
        ("length", UsagePart(40, 200), 200, 0, "length"),  # the request's limit
        ("length", UsagePart(478, 34), 200, 512, CONTEXT_FULL),  # prompt + answer = the window
        ("length", UsagePart(40, 34), 200, 512, "length"),  # the server's own limit, far from the window
        # Messages: input_tokens is the whole prompt there too (cache reads included, one rule for both wires)
        ("max_tokens", UsagePart(459, 53, 0, 454), 200, 512, CONTEXT_FULL),
        ("max_tokens", UsagePart(5, 53, 0, 454), 200, 512, "max_tokens"),  # the cache is not counted twice
        ("length", UsagePart(478, 34), 0, 0, "length"),  # no limit sent, no window: cannot tell
        ("length", None, 200, 512, "length"),  # no usage reported: an estimate cannot tell
        ("stop", UsagePart(478, 34), 200, 512, "stop"),
    ],
)
def test_a_length_stop_is_read_from_the_limit_the_usage_and_the_window(
    reason: str, usage: UsagePart | None, limit: int, window: int, expected: str
) -> None:
    assert stop_reason(reason, usage, output_limit=limit, context_window=window) == expected


async def test_a_context_full_stop_is_recorded_with_the_servers_word(llm_server: LLMServer) -> None:
    """Issue 25 item 3: what llama-server sent when prompt plus answer reached n_ctx after 34 of 200 tokens."""
    llm_server.queue(openai_stream(["apple"] * 34, finish="length", usage=(478, 34)))
    center = Center()
    center.add_provider(Provider("l", base_url=llm_server.openai_url, models=[ModelInfo("gemma-a")]))
    dialog = center.create_dialog()
    dialog.parameters = {"max_tokens": 200}
    dialog.append_message(Role.USER, "apple banana " * 200)
    assert not [e async for e in dialog.run() if isinstance(e, RunFailed)]
    meta = dialog.last_message.meta
    assert (meta["finish_reason"], meta["server_finish_reason"]) == (CONTEXT_FULL, "length")


def test_a_tool_call_cut_short_goes_back_with_empty_arguments() -> None:
    """llama-server answers cut argument JSON with HTTP 500 "Failed to parse tool call arguments as JSON"."""
    cut = '[{"id":"c1","type":"function","function":{"name":"get_time","arguments":"{\\n  \\"tz"}}]'
    whole = '[{"id":"c2","type":"function","function":{"name":"get_time","arguments":"{\\"tz\\":\\"UTC\\"}"}}]'
    request = ChatRequest(
        model=ModelInfo("m"),
        messages=[
            Message(Role.USER, "time?"),
            Message(Role.ASSISTANT, "", tool_calls=cut),
            Message(Role.TOOL, '{"error":"invalid arguments"}', tool_call_id="c1"),
            Message(Role.ASSISTANT, "", tool_calls=whole),
            Message(Role.TOOL, '{"time":"12:00"}', tool_call_id="c2"),
        ],
    )
    sent = [
        m["tool_calls"][0]["function"]["arguments"] for m in openai_wire.wire_messages(request) if "tool_calls" in m
    ]
    assert sent == ["{}", '{"tz":"UTC"}']
