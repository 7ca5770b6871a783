"""Building the app on a scripted provider for Pilot tests, and waiting for it to settle."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.pilot import Pilot

from visindigo.engine import Center, Dialog, Message, Role
from visindigo.engine.providers import FinishPart, ReasoningPart, TextPart, scripted_provider
from visindigo.engine.providers.scripted import Script, TurnItem
from visindigo.tui.app import AppOptions, VisindigoApp
from visindigo.tui.main.screen import MainScreen


def answer(text: str, reasoning: str = "", *, pieces: int = 1) -> list[TurnItem]:
    """A turn streaming `reasoning` then `text` (split into `pieces` parts), finishing normally."""
    turn: list[TurnItem] = []
    if reasoning:
        turn.append(ReasoningPart(reasoning))
    size = max(1, len(text) // pieces)
    turn += [TextPart(text[i : i + size]) for i in range(0, len(text), size)]
    turn.append(FinishPart("stop"))
    return turn


def make_center(script: Script, **provider: Any) -> Center:
    center = Center()
    center.add_provider(scripted_provider(script, **provider))
    return center


def make_app(script: Script | None = None, *, center: Center | None = None, **options: Any) -> VisindigoApp:
    if center is None:
        center = make_center(script if script is not None else [])
    options.setdefault("stream_fps", 30.0)
    return VisindigoApp(center, AppOptions(**options))


def main_screen(app: VisindigoApp) -> MainScreen:
    screen = app.main_screen
    assert screen is not None
    return screen


async def settle(pilot: Pilot[Any]) -> None:
    """Let every run finish and every message be handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


async def type_text(pilot: Pilot[Any], text: str) -> None:
    for char in text:
        await pilot.press(char if char != " " else "space")


def seeded_dialog(center: Center, pairs: Sequence[tuple[str, str]], title: str = "Seeded") -> Dialog:
    """A registered dialog holding user/assistant pairs."""
    dialog = center.create_dialog()
    dialog.title = title
    for question, reply in pairs:
        dialog.append_message(Role.USER, question)
        dialog.append_message(Message(Role.ASSISTANT, reply, reasoning=f"thinking about {question}"))
    return dialog


async def wait_until(pilot: Pilot[Any], condition: Callable[[], object], seconds: float = 10.0) -> bool:
    """Pause until `condition()` is true (or `seconds` passed); a loaded machine may take a while."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return True
        await pilot.pause(0.05)
    return bool(condition())
