"""The Messages request for one round: its body, its URL and the wire format's own headers.

Apart from `anthropic.py` (the adapter, which reads the stream) so that it imports neither httpx nor asyncio:
`visindigo ask` builds its first request with exactly this code and sends it before those are loaded
(`engine.providers.early`); the adapter re-exports these names.
"""

from __future__ import annotations

from typing import Any

from ..attachments.limits import image_limits_for
from ..attachments.wire import anthropic_user_blocks
from ..capability import Capability
from ..message import Message, Role
from ..parameters import is_forced_tool_choice
from .history import sendable_history
from .request import ChatRequest, Endpoint, output_limit
from .tool_calls import arguments_object

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_VERSION",
    "base_url_of",
    "build_body",
    "mark_cache_breakpoints",
    "messages_url",
    "own_headers",
    "wire_messages",
]

DEFAULT_BASE_URL = "https://api.anthropic.com/v1"
DEFAULT_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 4096


def base_url_of(provider: Endpoint) -> str:
    """The provider's base URL, ending in /v1 (added when missing)."""
    base = provider.base_url or DEFAULT_BASE_URL
    return base if base.endswith("/v1") else f"{base}/v1"


def messages_url(provider: Endpoint) -> str:
    return f"{base_url_of(provider)}/messages"


def own_headers(provider: Endpoint) -> dict[str, str]:
    """The wire format's headers: the API version and the key."""
    headers = {"anthropic-version": str(provider.settings.get("anthropic_version") or DEFAULT_VERSION)}
    key = provider.api_key
    if key:
        headers["x-api-key"] = key
    return headers


def build_body(request: ChatRequest, *, named_tool_choice: bool = True, documents: bool = True) -> dict[str, Any]:
    """The Messages request for one round; `named_tool_choice` False for a server that takes a named choice as
    "any tool" (`capabilities.takes_named_tool_choice`), `documents` False for one that drops `document` blocks
    (`capabilities.takes_documents`): its PDFs go as their text."""
    settings = request.settings
    model = request.model
    system_parts = [request.system] if request.system else []
    system_parts += [m.content for m in request.messages if m.role is Role.SYSTEM and m.content]
    parameters = request.parameters
    max_tokens = output_limit(request) or DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": wire_messages(request, documents=documents),
    }
    if system_parts:
        body["system"] = "\n\n".join(system_parts)
    if request.tools:
        body["tools"] = [
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "input_schema": tool.get("parameters") or {"type": "object", "properties": {}},
            }
            for tool in request.tools
        ]
    for name, field in (("temperature", "temperature"), ("top_p", "top_p"), ("stop", "stop_sequences")):
        if name in parameters:
            body[field] = parameters[name]
    choice = parameters.get("tool_choice")
    if choice and request.tools:
        body["tool_choice"] = _TOOL_CHOICES.get(choice) or {"type": "tool", "name": choice}
        if choice not in _TOOL_CHOICES and not named_tool_choice and request.first_round:
            # the server calls any tool it is offered: offer only the chosen one
            body["tools"] = [tool for tool in body["tools"] if tool["name"] == choice] or body["tools"]
    budget = settings.get("thinking_budget") or model.extra.get("thinking_budget")
    if isinstance(budget, int) and budget >= 1024:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if body["max_tokens"] <= budget:
            body["max_tokens"] = budget + DEFAULT_MAX_TOKENS
    for extra in (settings.get("extra_body"), model.extra.get("extra_body")):
        if isinstance(extra, dict):
            body.update(extra)
    if not request.first_round and is_forced_tool_choice(body.get("tool_choice")):
        body["tool_choice"] = {"type": "auto"}  # after a tool result: a forced choice would loop
    if settings.get("prompt_caching", model.extra.get("prompt_caching", True)) is not False:
        mark_cache_breakpoints(body)
    body["stream"] = True
    return body


#: What a cache breakpoint is: the prefix up to and including the marked block is cached (five minutes).
_EPHEMERAL = {"type": "ephemeral"}
#: Blocks that cannot carry a breakpoint themselves.
_UNMARKABLE = ("thinking", "redacted_thinking")


def mark_cache_breakpoints(body: dict[str, Any]) -> None:
    """`cache_control` on the stable prefix, at most four breakpoints (the API's limit): the end of the system
    prompt, the last tool, the history before the last question (what the next turns re-send unchanged), and the
    end of the request (which the next turn reads back from the cache).

    A prefix shorter than the model's minimum (1024 tokens on most models) is not cached and costs nothing extra;
    a cache write costs 1.25 times the input price, a read a tenth of it."""
    system = body.get("system")
    if isinstance(system, str) and system:
        body["system"] = [{"type": "text", "text": system, "cache_control": dict(_EPHEMERAL)}]
    tools = body.get("tools")
    if isinstance(tools, list) and tools:
        tools[-1] = {**tools[-1], "cache_control": dict(_EPHEMERAL)}
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return
    last_question = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    for index in sorted({last_question - 1, len(messages) - 1}):
        if index >= 0:
            _mark_last_block(messages[index])


def _mark_last_block(message: dict[str, Any]) -> None:
    content = message.get("content")
    if not isinstance(content, list):
        return
    for position in range(len(content) - 1, -1, -1):
        block = content[position]
        if isinstance(block, dict) and block.get("type") not in _UNMARKABLE:
            content[position] = {**block, "cache_control": dict(_EPHEMERAL)}
            return


#: The dialog's tool choice in Messages API terms ("required" is "any"); a tool's name becomes {"type": "tool"}.
_TOOL_CHOICES: dict[str, dict[str, str]] = {
    "auto": {"type": "auto"},
    "none": {"type": "none"},
    "required": {"type": "any"},
}


def wire_messages(request: ChatRequest, *, documents: bool = True) -> list[dict[str, Any]]:
    """The dialog as Messages API turns: content blocks, tool results as user turns, one role per turn.

    Attached files go as `engine.attachments.wire` puts them: images as base64 `image` blocks scaled to Anthropic's
    limits, PDFs as `document` blocks (as text when `documents` is False: the provider setting `pdf_as_text`, or a
    server known to drop documents), text files in the text.
    """
    sees_images = Capability.IMAGE in request.model.capabilities
    limits = image_limits_for("anthropic", request.settings)
    told = request.settings.get("pdf_as_text")
    documents = (not told) if isinstance(told, bool) else documents
    out: list[dict[str, Any]] = []
    for message in sendable_history(request.messages):
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.TOOL:
            role = "user"
            blocks: list[dict[str, Any]] = [
                {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}
            ]
        elif message.role is Role.ASSISTANT:
            role = "assistant"
            blocks = _assistant_blocks(message, request.provider_id)
        else:
            role = "user"
            blocks = anthropic_user_blocks(message, sees_images=sees_images, limits=limits, documents=documents)
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _assistant_blocks(message: Message, provider_id: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    calls = message.parsed_tool_calls()
    if calls and provider_id and message.meta.get("provider_id") == provider_id:
        data = message.meta.get("provider_data")
        thinking = data.get("thinking_blocks") if isinstance(data, dict) else None
        if isinstance(thinking, list):
            blocks.extend(block for block in thinking if isinstance(block, dict))
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in calls:
        function = call.get("function")
        if not isinstance(function, dict):
            function = {}
        blocks.append(
            {
                "type": "tool_use",
                "id": str(call.get("id", "")),
                "name": str(function.get("name", "")),
                "input": _arguments_object(function.get("arguments")),
            }
        )
    return blocks


def _arguments_object(raw: Any) -> dict[str, Any]:
    """The API wants the input as an object; text the model got wrong goes back as an empty object."""
    return arguments_object(raw) or {}
