"""The command palette's entries: every action of the main screen, found by fuzzy matching."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider


async def _call(callback: Any) -> None:
    result = callback()
    if hasattr(result, "__await__"):
        await result


class MainCommands(Provider):
    """Asks the screen for its commands (`palette_commands()`) each time the palette opens."""

    def _commands(self) -> list[tuple[str, str, Any]]:
        source = getattr(self.screen, "palette_commands", None)
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
