"""Suggestions from an MCP server (`completion/complete`) for a form field, as Textual's inline suggestion.

The suggestion appears greyed after what is typed and → accepts it, as anywhere in Textual. Used for the
arguments of server prompts in the template form and for the variables of resource templates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.suggester import Suggester


class ServerSuggester(Suggester):
    """Asks `source.complete(server, kind, name, argument, value, context)` for the first match."""

    def __init__(
        self,
        source: Any,
        server: Any,
        kind: str,
        name: str,
        argument: str,
        context: Callable[[], dict[str, str]] | None = None,
    ) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.source = source
        self.server = server
        self.kind = kind
        self.name = name
        self.argument = argument
        self.context = context

    async def get_suggestion(self, value: str) -> str | None:
        context = self.context() if self.context is not None else {}
        try:
            values = await self.source.complete(self.server, self.kind, self.name, self.argument, value, context)
        except Exception:  # a server failing to complete only means no suggestion
            return None
        return next((v for v in values if v.startswith(value) and v != value), None)
