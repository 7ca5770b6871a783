"""Which dialog and tool call the current task is working for.

A tool runs as a plain `invoke_async(arguments)` call, yet an MCP tool needs to know its call: progress goes
on that call's block, a server's sampling request uses that dialog's provider. The run loop sets this context
variable around each call; asyncio copies it into tasks the tool starts, so it reaches them without any
change to the `Function` interface.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dialog import Dialog


@dataclass(frozen=True, slots=True)
class ToolCallContext:
    dialog: Dialog
    call_id: str
    function_id: str


current_tool_call: ContextVar[ToolCallContext | None] = ContextVar("visindigo_current_tool_call", default=None)
