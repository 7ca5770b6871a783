"""Whether a dialog's next request fits its model's window, with the room kept for the answer.

`check_fit` is what a UI calls before sending (and for its meter): it is synchronous and cheap, counting from the
cache of `counting`; `check_fit_exactly` first asks the server's tokenizer for what is not counted yet (llama.cpp
`/tokenize`, Anthropic `count_tokens`). Neither sends anything to the model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..capability import Capability
from ..message import Message, Role
from ..model_window import window
from ..provider import NoModelAvailable
from ..record import record
from .counting import RequestSize, counter_for

if TYPE_CHECKING:
    from ..center import Center
    from ..dialog import Dialog
    from ..model_info import ModelInfo
    from ..provider import Provider

__all__ = ["DEFAULT_ANSWER_ROOM", "Fit", "check_fit", "check_fit_exactly", "request_parts"]

#: Tokens kept for the answer when neither the dialog, the provider nor the model sets an output limit.
DEFAULT_ANSWER_ROOM = 1024
FITS, TIGHT, OVER, UNKNOWN = "fits", "tight", "over", "unknown"


@record(frozen=True, slots=True)
class Fit:
    """The next request against the window.

    `status`: "fits" (the request and the room for the answer fit), "tight" (the request fits, the answer may be
    cut short), "over" (the request alone does not fit: the server refuses it or cuts it) or "unknown" (no
    window is known). `used` is the request's size, `room` the answer's share, `window` the model's.
    """

    status: str
    used: int
    window: int
    room: int
    approximate: bool
    count_source: str
    window_source: str
    provider_id: str = ""
    model_id: str = ""

    @property
    def fraction(self) -> float:
        """Used / window (0 when unknown): the meter's figure, which turns amber at 0.8 and red at 0.95."""
        return self.used / self.window if self.window else 0.0

    @property
    def fits(self) -> bool:
        return self.status in (FITS, TIGHT, UNKNOWN)


@record
class Parts:
    """What the next request of a dialog would send (as far as known without starting MCP servers)."""

    provider: Provider
    model: ModelInfo
    system: str
    tools: list[dict[str, Any]]
    messages: list[Message]
    room: int


def request_parts(
    center: Center, dialog: Dialog, draft: str = "", *, on: tuple[str, str] | None = None
) -> Parts | None:
    """The provider, model, system prompt, tools and messages of the dialog's next request, with `draft` as the
    question about to be sent; None without a provider or model. `on` (provider id, model id) asks it of another
    model than the dialog's (a comparison's column)."""
    provider_id, model_id = on if on is not None else (dialog.provider_id, dialog.model_id)
    provider = center.get_provider(provider_id) if provider_id else center.default_provider
    if provider is None:
        return None
    try:
        model = provider.pick_model(dialog.capability_requirement | Capability.TEXT, model_id)
    except NoModelAvailable:
        return None
    system = "\n\n".join(s.content.strip() for s in dialog.effective_skills() if s.content.strip())
    tools = [f.declaration() for f in dialog.effective_functions()] if Capability.TOOLS in model.capabilities else []
    messages = list(dialog.read_messages())  # only measured: no copies (bench/context_count.py)
    if draft:
        messages.append(Message(Role.USER, draft))
    limit = dialog.parameters.get("max_tokens") or provider.settings.get("max_tokens") or model.max_output_tokens
    room = limit if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0 else DEFAULT_ANSWER_ROOM
    return Parts(provider, model, system, tools, messages, room)


def check_fit(center: Center, dialog: Dialog, draft: str = "", *, on: tuple[str, str] | None = None) -> Fit | None:
    """The fit of the dialog's next request (with `draft` as its question; on the model `on`, else the dialog's);
    None without a model to ask."""
    parts = request_parts(center, dialog, draft, on=on)
    if parts is None:
        return None
    size = counter_for(parts.provider, parts.model).count(dialog.id, parts.system, parts.tools, parts.messages)
    return _fit(parts, size)


async def check_fit_exactly(center: Center, dialog: Dialog, draft: str = "") -> Fit | None:
    """`check_fit` after asking the server what it can say: the window, and the tokens of what is not counted."""
    parts = request_parts(center, dialog, draft)
    if parts is None:
        return None
    from ..providers.windows import ensure_windows  # the adapters load with the first request, not the meter

    await ensure_windows(parts.provider)
    counter = counter_for(parts.provider, parts.model)
    if parts.provider.kind == "anthropic":
        counted = await _anthropic_count(parts)
        if counted:
            counter.learn(dialog.id, parts.system, parts.tools, parts.messages, counted)
            size = counter.count(dialog.id, parts.system, parts.tools, parts.messages)
            return _fit(parts, RequestSize(size.tokens, False, "Anthropic count_tokens"))
    else:
        await counter.tokenize(parts.provider, parts.messages)
    return _fit(parts, counter.count(dialog.id, parts.system, parts.tools, parts.messages))


def _fit(parts: Parts, size: RequestSize) -> Fit:
    tokens, source = window(parts.model)
    if not tokens:
        status = UNKNOWN
    elif size.tokens > tokens:
        status = OVER
    elif size.tokens + parts.room > tokens:
        status = TIGHT
    else:
        status = FITS
    return Fit(
        status,
        size.tokens,
        tokens,
        parts.room,
        size.approximate,
        size.source,
        source,
        parts.provider.id,
        parts.model.id,
    )


async def _anthropic_count(parts: Parts) -> int:
    """Anthropic's `POST /v1/messages/count_tokens` for the whole request (free, and exact); 0 when it fails."""
    from ..providers._httpx import httpx
    from ..providers.anthropic import AnthropicAdapter, build_body
    from ..providers.base import ChatRequest, ProviderError

    adapter = parts.provider.adapter
    if not isinstance(adapter, AnthropicAdapter):
        return 0
    request = ChatRequest(parts.model, parts.system, parts.messages, parts.tools, dict(parts.provider.settings))
    body = {k: v for k, v in build_body(request).items() if k in ("model", "system", "messages", "tools")}
    try:
        headers = adapter._headers("application/json")
        response = await adapter.http.client.post(
            f"{adapter.base_url}/messages/count_tokens", json=body, headers=headers
        )
        counted = response.json().get("input_tokens") if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError, AttributeError, ProviderError, json.JSONDecodeError):
        return 0
    return counted if isinstance(counted, int) and not isinstance(counted, bool) and counted > 0 else 0
