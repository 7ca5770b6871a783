"""A provider that replays canned answers: it backs `visindigo --demo` and the fast tests.

A script is either a list of turns (one turn per request, in order) or a function of the request that returns
a turn. A turn is a list of items: stream parts (as a real adapter yields them), `Pause(seconds)` to wait, or
an exception instance (usually `ProviderError`) to raise at that point, after what came before was yielded.
Every request is recorded in `requests`, so a test can assert what the run loop would have sent.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..capability import Capability
from ..provider import ModelInfo, Provider
from .base import ChatRequest, FinishPart, ProviderError, StreamPart, TextPart

if TYPE_CHECKING:
    import asyncio

__all__ = ["Pause", "ScriptedAdapter", "Turn", "scripted_provider", "text_turn"]


@dataclass(frozen=True, slots=True)
class Pause:
    """Wait this long before the next item of a turn (a slow server, a long thought).

    `reached`, when given, is set as the pause begins: a test waits for it instead of guessing with a sleep
    how long the run takes to get there. `until`, when given, holds the turn until the test sets it (`seconds`
    is then only the longest wait, so a failing test ends): a loaded machine can take longer than any fixed
    pause to show what the test looks for, and a held turn cannot end before the test has seen it.
    """

    seconds: float
    reached: asyncio.Event | None = field(default=None, compare=False)
    until: asyncio.Event | None = field(default=None, compare=False)


TurnItem = StreamPart | Pause | BaseException
Turn = Sequence[TurnItem]
Script = Sequence[Turn] | Callable[[ChatRequest], Turn | Awaitable[Turn]]


class ScriptedAdapter:
    """Replays turns; `delay` is waited before every part (0 gives instant, deterministic output)."""

    def __init__(self, script: Script, *, delay: float = 0.0, models: Iterable[ModelInfo] = ()) -> None:
        self._script = script
        self._next_turn = 0
        self.delay = delay
        self.models = list(models)
        self.requests: list[ChatRequest] = []
        self.closed = False

    async def _turn_for(self, request: ChatRequest) -> Turn:
        if callable(self._script):
            result = self._script(request)
            if inspect.isawaitable(result):
                return await result
            return result
        if self._next_turn >= len(self._script):
            raise ProviderError(
                f"the scripted provider has no answer left (it had {len(self._script)}); add more turns to its script"
            )
        turn = self._script[self._next_turn]
        self._next_turn += 1
        return turn

    async def stream(self, request: ChatRequest) -> AsyncGenerator[StreamPart, None]:
        self.closed = False
        self.requests.append(request)
        turn = await self._turn_for(request)
        for item in turn:
            if isinstance(item, Pause):
                if item.reached is not None:
                    item.reached.set()
                await _pause(item)
                continue
            if isinstance(item, BaseException):
                raise item
            if self.delay > 0:
                import asyncio  # here: the package is imported by `visindigo ask` before asyncio (ask_early)

                await asyncio.sleep(self.delay)
            yield item

    async def list_models(self) -> list[ModelInfo]:
        return list(self.models)

    async def aclose(self) -> None:
        self.closed = True


async def _pause(pause: Pause) -> None:
    import asyncio

    if pause.until is None:
        await asyncio.sleep(pause.seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pause.until.wait(), pause.seconds)


def text_turn(text: str, *, reason: str = "stop") -> list[TurnItem]:
    """A turn that answers `text` in one part and finishes."""
    return [TextPart(text), FinishPart(reason)]


def scripted_provider(
    script: Script,
    *,
    id: str = "scripted",
    name: str = "Scripted",
    models: Iterable[ModelInfo] | None = None,
    delay: float = 0.0,
) -> Provider:
    """A `Provider` of kind "scripted" whose adapter replays `script`.

    Without `models`, it offers one model ("scripted-model") that can do everything, so capability checks
    never get in a test's way unless the test means them to.
    """
    model_list = (
        list(models)
        if models is not None
        else [ModelInfo("scripted-model", name="Scripted model", capabilities=_ALL_CAPABILITIES)]
    )
    provider = Provider(id, kind="scripted", name=name, models=model_list)
    provider.models_listed = True
    provider.attach_adapter(ScriptedAdapter(script, delay=delay, models=model_list))
    return provider


_ALL_CAPABILITIES = Capability.TEXT | Capability.IMAGE | Capability.TOOLS | Capability.REASONING
