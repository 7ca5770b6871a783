"""The app's answers to what MCP servers ask of the user: a modal for each elicitation and sampling request.

Servers ask from the MCP connection's own tasks, not from a Textual worker, so the modal is pushed with a
callback that completes a future. Several requests stack as several modals, each answered in turn. If the
request is abandoned (the server or the run cancelled it), its modal is closed so no stale question remains.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, TypeVar

from visindigo.engine.mcp.host import ElicitationAnswer, ElicitationRequest, SamplingDecision, SamplingRequest

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

T = TypeVar("T")


class AppHost:
    """`visindigo.engine.mcp.MCPHost` for the Textual app."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        from visindigo.tui.mcp.elicitation import ElicitationScreen

        return await self._ask(ElicitationScreen(request), ElicitationAnswer("cancel"))

    async def approve_sampling(self, request: SamplingRequest) -> SamplingDecision:
        from visindigo.tui.mcp.sampling import SamplingScreen

        return await self._ask(SamplingScreen(request), SamplingDecision.DENY)

    async def sign_in(self, server: str, url: str, finished: asyncio.Event) -> None:
        """Show the authorization page until `finished` (the redirect arrived); returns early if given up."""
        from visindigo.tui.mcp.sign_in_page import SignInScreen

        await self._ask(SignInScreen(server, url, finished), None)

    async def _ask(self, screen: Screen[T], fallback: T) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def answered(result: T | None) -> None:
            if not future.done():
                future.set_result(fallback if result is None else result)

        self.app.push_screen(screen, callback=answered)
        try:
            return await future
        finally:
            if not future.done() and self.app.screen is screen:
                screen.dismiss(None)
