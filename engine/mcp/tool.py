"""An MCP tool as a dialog `Function`: the model sees `server__tool`, the server receives its real tool name."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..function import Function
from .status import ToolHints, ToolInfo

if TYPE_CHECKING:
    from .connection import ServerConnection


class MCPToolFunction(Function):
    """A tool of a running MCP server.

    Asks for approval unless the server's config says `approval = "allow"`, or `"read_only"` and the tool is
    annotated read-only and not destructive. The result is always an object:
    the server's `structuredContent`, or `{"content": text}`, or `{"isError": true, "error": why}` — never an
    exception, so a crashed or silent server costs one tool result, not the dialog.
    """

    def __init__(self, connection: ServerConnection, tool: ToolInfo, function_id: str) -> None:
        self._connection = connection
        self._tool = tool
        self._id = function_id
        approval = connection.server.approval
        self.requires_approval = not (approval == "allow" or (approval == "read_only" and tool.hints.safe_to_allow))

    @property
    def id(self) -> str:
        return self._id

    @property
    def name(self) -> str:
        return f"{self.server_name}/{self._tool.title or self._tool.name}"

    @property
    def description(self) -> str:
        return self._tool.description

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return self._tool.input_schema

    @property
    def hints(self) -> ToolHints:
        return self._tool.hints

    def hint_words(self) -> list[str]:
        """The tool's annotations in words, for the approval modal (hints from the server, not guarantees)."""
        return self._tool.hints.words()

    @property
    def server_name(self) -> str:
        return self._connection.name

    @property
    def tool_name(self) -> str:
        """The tool's real name on its server (what `id` maps back to)."""
        return self._tool.name

    async def invoke_async(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self._connection.call_tool(self._tool.name, arguments)

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run from a thread other than the event loop's (a sync caller); the loop does the talking."""
        loop = self._connection.loop
        if loop is None or loop.is_closed():
            raise RuntimeError(f"MCP server {self.server_name!r} is not running; use invoke_async")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError("invoke() would block the event loop that serves the MCP server; use invoke_async")
        return asyncio.run_coroutine_threadsafe(self.invoke_async(arguments), loop).result()

    def __repr__(self) -> str:
        return f"MCPToolFunction({self._id!r} -> {self.server_name}/{self._tool.name})"
