"""The chat-completions request for one round: its body, its URL and the wire format's own headers.

Apart from `openai.py` (the adapter, which reads the stream) so that it imports neither httpx nor asyncio:
`visindigo ask` builds its first request with exactly this code and sends it before those are loaded
(`engine.providers.early`); the adapter re-exports these names.
"""

from __future__ import annotations

from typing import Any

from ..attachments.limits import image_limits_for
from ..attachments.wire import openai_user_content
from ..capability import Capability
from ..message import Message, Role
from ..parameters import TOOL_CHOICE_MODES, is_forced_tool_choice
from .history import sendable_history
from .request import ChatRequest, Endpoint, output_limit
from .tool_calls import arguments_object

__all__ = ["build_body", "chat_url", "own_headers", "wire_messages"]


def chat_url(provider: Endpoint) -> str:
    return f"{provider.base_url}/chat/completions"


def own_headers(provider: Endpoint) -> dict[str, str]:
    """The wire format's headers: the API key as a bearer token."""
    key = provider.api_key
    return {"Authorization": f"Bearer {key}"} if key else {}


def wire_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools offered, as chat-completions "function" entries (Ollama's chat API takes the same shape)."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool.get("parameters") or {"type": "object", "properties": {}},
            },
        }
        for tool in tools
    ]


def build_body(request: ChatRequest, *, stream_usage: bool = True, named_tool_choice: bool = True) -> dict[str, Any]:
    """The chat-completions request for one round; `named_tool_choice` False for a server that does not take the
    object form of a named tool choice (see `takes_named_tool_choice`)."""
    settings = request.settings
    body: dict[str, Any] = {"model": request.model.id, "messages": wire_messages(request), "stream": True}
    if stream_usage:
        body["stream_options"] = {"include_usage": True}
    if request.tools:
        body["tools"] = wire_tools(request.tools)
    parameters = request.parameters
    max_tokens = output_limit(request)
    if max_tokens:
        body[str(settings.get("max_tokens_field") or "max_tokens")] = max_tokens
    for name in ("temperature", "top_p", "seed", "stop", "reasoning_effort"):
        if name in parameters:
            body[name] = parameters[name]
    choice = parameters.get("tool_choice")
    if choice and request.tools:
        if choice in TOOL_CHOICE_MODES:
            body["tool_choice"] = choice
        elif named_tool_choice or not request.first_round:
            body["tool_choice"] = {"type": "function", "function": {"name": choice}}
        else:  # the server reads only a string here: "required", with only the chosen tool offered
            body["tool_choice"] = "required"
            body["tools"] = [tool for tool in body["tools"] if tool["function"]["name"] == choice] or body["tools"]
    for extra in (settings.get("extra_body"), request.model.extra.get("extra_body")):
        if isinstance(extra, dict):
            body.update(extra)
    if not request.first_round and is_forced_tool_choice(body.get("tool_choice")):
        body["tool_choice"] = "auto"  # after a tool result: a forced choice would call the tool again and again
    return body


def wire_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The dialog as chat-completions messages.

    Reasoning stays out, except on assistant messages with tool calls: there the reasoning goes back when
    `send_reasoning_with_tool_calls` is set (DeepSeek thinking mode requires it), and OpenRouter's opaque
    `reasoning_details` go back to the provider that produced them (continuing a tool call needs them).
    Images go only to IMAGE models; for others a note says an image was left out. Attached files go as
    `engine.attachments.wire` puts them: text files and PDFs as text, images as data URLs scaled to OpenAI's limits
    (or the provider's `image_long_side` / `image_max_bytes`).
    """
    settings = request.settings
    resend = bool(settings.get("send_reasoning_with_tool_calls"))
    reasoning_field = str(settings.get("reasoning_field") or "reasoning_content")
    sees_images = Capability.IMAGE in request.model.capabilities
    limits = image_limits_for("openai", settings)
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    for message in sendable_history(request.messages):
        role = message.role
        if role is Role.TOOL:
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content})
        elif role is Role.ASSISTANT:
            # "" rather than null: OpenAI allows null only beside tool calls, and llama.cpp's server (among others)
            # answers a null content with a validation error; an empty string is accepted everywhere.
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            calls = message.parsed_tool_calls()
            if calls:
                entry["tool_calls"] = [_sendable_call(call) for call in calls]
                if resend and message.reasoning:
                    entry[reasoning_field] = message.reasoning
                data = _own_provider_data(message, request.provider_id)
                if data.get("reasoning_details"):
                    entry["reasoning_details"] = data["reasoning_details"]
            out.append(entry)
        elif role is Role.SYSTEM:
            out.append({"role": "system", "content": message.content})
        else:
            out.append(
                {"role": "user", "content": openai_user_content(message, sees_images=sees_images, limits=limits)}
            )
    return out


def _sendable_call(call: dict[str, Any]) -> dict[str, Any]:
    """The call as stored, with arguments that are not a JSON object (cut short by the output limit) sent as "{}"."""
    function = call.get("function")
    if not isinstance(function, dict) or arguments_object(function.get("arguments")) is not None:
        return call
    return {**call, "function": {**function, "arguments": "{}"}}


def _own_provider_data(message: Message, provider_id: str) -> dict[str, Any]:
    """Opaque data saved with a message, only when this provider produced it (others would reject it)."""
    if not provider_id or message.meta.get("provider_id") != provider_id:
        return {}
    data = message.meta.get("provider_data")
    return data if isinstance(data, dict) else {}
