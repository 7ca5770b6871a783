"""A run host for the workbench without Textual: runs are asyncio tasks, approvals are scripted."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from visindigo.engine import Center
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.engine.providers import FinishPart, ReasoningPart, TextPart, scripted_provider
from visindigo.engine.providers.scripted import Script, TurnItem
from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench.events import EngineEvent, WorkbenchEvent


def answer(text: str, reasoning: str = "") -> list[TurnItem]:
    turn: list[TurnItem] = [ReasoningPart(reasoning)] if reasoning else []
    return [*turn, TextPart(text), FinishPart("stop")]


class TaskHost:
    """Runs each run as an asyncio task; `approvals` answers tool calls in order (deny when empty)."""

    def __init__(self) -> None:
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.names: list[str] = []
        self.approvals: list[Approval] = []
        self.asked: list[ToolCallRequest] = []

    def start(self, run: Coroutine[Any, Any, None], *, name: str, group: str) -> None:
        self.names.append(name)
        self.tasks[group] = asyncio.get_running_loop().create_task(run)

    def cancel(self, group: str) -> None:
        self.tasks[group].cancel()

    async def approve(self, request: ToolCallRequest) -> Approval:
        self.asked.append(request)
        return self.approvals.pop(0) if self.approvals else Approval.DENY

    async def settle(self) -> None:
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)


class Bench:
    """A workbench over an in-memory Center with a scripted provider, and every event it emitted."""

    def __init__(self, script: Script) -> None:
        self.center = Center()
        self.center.add_provider(scripted_provider(script))
        self.host = TaskHost()
        self.workbench = Workbench(self.center, host=self.host)
        self.events: list[WorkbenchEvent] = []
        self.workbench.subscribe(self.events.append)

    def kinds(self, dialog_id: str | None = None) -> list[str]:
        """The events' names, an engine event forwarded by the workbench named as the engine names it."""
        return [
            type(e.event if isinstance(e, EngineEvent) else e).__name__
            for e in self.events
            if dialog_id is None or getattr(e, "dialog_id", None) == dialog_id
        ]


@pytest.fixture
def bench_for() -> Any:
    return Bench
