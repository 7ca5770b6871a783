"""Asking the user before a tool runs.

The engine only defines the question and the possible answers; the TUI answers with a modal, a script with a
function. Without an answer (no callback), a tool that needs approval is denied, and the model is told so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Approval(Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_FOR_DIALOG = "allow_for_dialog"
    DENY = "deny"


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """A call the model asked for, as the user is shown it."""

    call_id: str
    function_id: str
    function_name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    dialog_id: str = ""
    #: What the tool says of itself (MCP annotations: "read-only", "destructive", "open world", …).
    hints: tuple[str, ...] = ()


ApprovalCallback = Callable[[ToolCallRequest], Awaitable[Approval]]

DENIED_RESULT = '{"error":"the user denied this tool call; do not retry it unless the user asks"}'
