"""The command palette's entries: every action of the main screen, found by fuzzy matching."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

#: A palette entry: its title, its help, and what it runs (an action's result may be awaitable).
Command = tuple[str, str, Callable[[], object]]


async def _call(callback: Callable[[], object]) -> None:
    result = callback()
    if inspect.isawaitable(result):
        await result


class MainCommands(Provider):
    """Asks the screen for its commands (`palette_commands()`) each time the palette opens."""

    def _commands(self) -> list[Command]:
        source = getattr(self.screen, "palette_commands", None)  # the main screen's (other screens have none)
        return list(source()) if callable(source) else []

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, partial(_call, callback), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(f"{title} {help_text}")
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(_call, callback), text=title, help=help_text)
