"""How many tokens a request is before it is sent, and whether it fits the model's window.

A count is made of three kinds of figure, best first:

- **reported**: the prompt size the server reported for the dialog's last request (`learn`, after each answer):
  the next request repeats that prefix, so only what came after it is counted anew;
- **tokenized**: a message counted by the server's own tokenizer — llama.cpp's `POST /tokenize` per message,
  Anthropic's `count_tokens` for a whole request (`count_exactly`);
- **estimated**: about four bytes of UTF-8 a token, scaled by what the last reported usage showed of this model's
  tokenizer. A count with an estimated part is `approximate` (shown with `~`).

Every figure is cached per message (by its role, text and tool calls), so a 2,000-message dialog costs a lookup
per message on each count (bench/context_count.py). Counters live per provider and model for the session.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..message import Message
from ..record import record

if TYPE_CHECKING:
    from ..model_info import ModelInfo
    from ..provider import Provider

log = logging.getLogger(__name__)

__all__ = ["BYTES_PER_TOKEN", "Counter", "RequestSize", "counter_for", "forget_counts", "message_key"]

#: The estimate's assumption before any answer corrected it.
BYTES_PER_TOKEN = 4.0
#: Tokens a chat template adds around each message (role markers, separators), before usage corrected it.
MESSAGE_OVERHEAD = 4

MessageKey = tuple[int, str, str, str, str, int]


@record(frozen=True, slots=True)
class RequestSize:
    """A request's size in tokens; `approximate` when some part is an estimate; `source` says what counted it."""

    tokens: int
    approximate: bool
    source: str


def message_key(message: Message) -> MessageKey:
    """What makes two messages cost the same tokens (their text, calls and images; not their metadata)."""
    images = sum(1 for a in message.attachments if a.kind == "image")
    return (
        int(message.role),
        sent_text(message),
        message.tool_calls,
        message.tool_call_id,
        message.name,
        len(message.images) + images,
    )


def sent_text(message: Message) -> str:
    """The message's text as it is sent: with attached text files (and PDFs' text) in it, as the wire puts them
    (`attachments.wire`): a question with a 100 kB log costs the log's tokens too."""
    if not message.attachments:
        return message.content
    from ..attachments.wire import text_for_model

    return text_for_model(message)


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass")) if not text.isascii() else len(text)


@record
class _Anchor:
    """The last request of one dialog whose size the server reported."""

    prefix: list[MessageKey]
    fixed: tuple[str, str]
    tokens: int


@record
class Counter:
    """Token counts of one model's requests: per-message figures and per-dialog anchors."""

    #: Tokens of a message's text by the server's tokenizer (overhead not included).
    tokenized: dict[MessageKey, int] = field(default_factory=dict)
    #: Estimated bytes of a message (cached: a 2,000-message dialog is not re-measured each count).
    _sizes: dict[MessageKey, int] = field(default_factory=dict)
    #: Reported tokens per estimated token for this model (1.0 until an answer reported usage).
    ratio: float = 1.0
    anchors: dict[str, _Anchor] = field(default_factory=dict)
    #: What the chat template adds around each message, and once per request (the start, the generation prompt):
    #: measured on a llama.cpp server with `/apply-template` (`tokenize`), else assumed.
    message_overhead: int = MESSAGE_OVERHEAD
    request_overhead: int = 0
    template_measured: bool = False

    def count(
        self, dialog_id: str, system: str, tools: Sequence[dict[str, Any]], messages: Sequence[Message]
    ) -> RequestSize:
        """The request's size; see the module's docstring for what each part comes from."""
        keys = [message_key(message) for message in messages]
        fixed = (system, _tools_text(tools))
        anchor = self.anchors.get(dialog_id)
        start, total, approximate = 0, 0, False
        source = "estimate"
        if anchor is not None and anchor.fixed == fixed and keys[: len(anchor.prefix)] == anchor.prefix:
            start, total, source = len(anchor.prefix), anchor.tokens, "reported usage"
        else:
            total = self._estimate(len(system) and _bytes(system)) + self._estimate(_bytes(fixed[1]))
            total += self.request_overhead
            approximate = bool(system or tools) or not self.template_measured
        tokenized_any = False
        for key in keys[start:]:
            exact = self.tokenized.get(key)
            if exact is not None:
                total += exact + self.message_overhead
                tokenized_any = True
                continue
            size = self._sizes.get(key)
            if size is None:
                size = self._sizes[key] = sum(_bytes(part) for part in key[1:5] if isinstance(part, str))
                size += 1000 * key[5]  # an image: about a thousand tokens' worth on most servers
            total += self._estimate(size) + self.message_overhead
            approximate = True
        if tokenized_any and source == "estimate":
            source = "server tokenizer"
        elif tokenized_any:
            source = "reported usage + server tokenizer"
        return RequestSize(total, approximate, source)

    def learn(
        self,
        dialog_id: str,
        system: str,
        tools: Sequence[dict[str, Any]],
        messages: Sequence[Message],
        reported: int,
    ) -> None:
        """The server reported `reported` prompt tokens for this request: anchor the dialog there, and let the
        estimate of this model's text follow what the server counted."""
        if reported <= 0:
            return
        estimated = self._estimated_only(system, tools, messages)
        if estimated > 0 and not any(message_key(m) in self.tokenized for m in messages):
            self.ratio = min(4.0, max(0.25, reported / estimated))
        self.anchors[dialog_id] = _Anchor([message_key(m) for m in messages], (system, _tools_text(tools)), reported)

    def forget(self, dialog_id: str) -> None:
        self.anchors.pop(dialog_id, None)

    def _estimate(self, size: int) -> int:
        return int(-(-size * self.ratio // BYTES_PER_TOKEN)) if size else 0

    def _estimated_only(self, system: str, tools: Sequence[dict[str, Any]], messages: Sequence[Message]) -> int:
        saved, self.ratio = self.ratio, 1.0
        try:
            raw = self.count("", system, tools, messages).tokens  # "" has no anchor: a pure estimate
        finally:
            self.ratio = saved
        return raw

    async def tokenize(self, provider: Provider, messages: Iterable[Message]) -> int:
        """Count the messages not counted yet with a llama.cpp server's own tokenizer; returns how many were.

        Other servers have no such endpoint and are left to the estimate (Anthropic's whole-request count is
        `count_exactly`'s)."""
        from ..providers.capabilities import server_kind

        wanted = {message_key(m): m for m in messages if message_key(m) not in self.tokenized}
        if not wanted or server_kind(provider) != "llama.cpp":
            return 0
        from ..providers._httpx import httpx

        root = provider.base_url.rstrip("/").removesuffix("/v1")
        limit = asyncio.Semaphore(4)

        texts: dict[str, list[MessageKey]] = {}
        for key, message in wanted.items():
            text = "\n".join(part for part in (sent_text(message), message.tool_calls) if part)
            texts.setdefault(text, []).append(key)

        async def one(client: httpx.AsyncClient, text: str, keys: list[MessageKey]) -> None:
            async with limit:
                try:
                    response = await client.post(f"{root}/tokenize", json={"content": text})
                    tokens = response.json().get("tokens") if response.status_code == 200 else None
                except (httpx.HTTPError, ValueError, AttributeError):
                    return
            if isinstance(tokens, list):
                for key in keys:
                    self.tokenized[key] = len(tokens)

        async with httpx.AsyncClient(timeout=10.0, trust_env=False) as client:
            if not self.template_measured:
                await self._measure_template(client, root)
            await asyncio.gather(*(one(client, text, keys) for text, keys in texts.items()))
        return sum(key in self.tokenized for key in wanted)

    async def _measure_template(self, client: Any, root: str) -> None:
        """The chat template's tokens: one and two short messages rendered by the server (`/apply-template`)
        and tokenized as the prompt is (special tokens parsed, the start token added), less their texts."""
        from ..providers._httpx import httpx

        async def rendered(messages: list[dict[str, str]]) -> int:
            response = await client.post(f"{root}/apply-template", json={"messages": messages})
            prompt = response.json().get("prompt") if response.status_code == 200 else None
            if not isinstance(prompt, str):
                raise ValueError("no template")
            body = {"content": prompt, "add_special": True, "parse_special": True}
            tokens = (await client.post(f"{root}/tokenize", json=body)).json().get("tokens")
            if not isinstance(tokens, list):
                raise ValueError("no tokens")
            return len(tokens)

        async def plain(text: str) -> int:
            tokens = (await client.post(f"{root}/tokenize", json={"content": text})).json().get("tokens")
            if not isinstance(tokens, list):
                raise ValueError("no tokens")
            return len(tokens)

        try:
            one = await rendered([{"role": "user", "content": "x"}])
            two = await rendered([{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}])
            x, y = await plain("x"), await plain("y")
        except (httpx.HTTPError, ValueError, AttributeError):
            return
        self.message_overhead = max(0, (two - x - y) - (one - x))
        self.request_overhead = max(0, one - x - self.message_overhead)
        self.template_measured = True


def _tools_text(tools: Sequence[dict[str, Any]]) -> str:
    return json.dumps(list(tools), ensure_ascii=False, separators=(",", ":")) if tools else ""


_COUNTERS: dict[tuple[str, str], Counter] = {}


def counter_for(provider: Provider, model: ModelInfo) -> Counter:
    """The session's counter of one model of one provider."""
    key = (provider.id, model.id)
    counter = _COUNTERS.get(key)
    if counter is None:
        counter = _COUNTERS[key] = Counter()
    return counter


def forget_counts() -> None:
    """Forget every counter of the session (what each model's answers taught the estimate, each dialog's anchor):
    for a process that starts over, such as each test (a counter is found by provider and model id)."""
    _COUNTERS.clear()
