"""The Visindigo engine: dialogs, messages, tools, providers, storage. Pure Python — no textual, no rich.

The names exported here are the public API that the TUI, scripts and tests use. The events (`events`) and the
commands (`commands`, with their JSON Schema) are among them but load on first use (PEP 562): the app starts
without them (see `dialog`; a command is made by a plugin or the demo, after the first frame).
"""

from typing import TYPE_CHECKING, Any

from .capability import Capability
from .center import Center
from .dialog import Dialog
from .function import FUNCTION_ID_PATTERN, Function, InvalidFunctionId, check_function_id
from .lookup import DialogSummary, SearchHit
from .mcp_server import MCPServer
from .message import Image, Message, Role
from .prompt import Prompt
from .provider import ModelInfo, NoModelAvailable, Provider
from .skill import Skill
from .stream_text import StreamText

if TYPE_CHECKING:
    from .commands import Command, CommandParameter, CommandProvider, JSONSchema, command, command_to_function
    from .events import (
        AnswerMovedToReasoning,
        CacheBreak,
        ContextExceeded,
        DialogChanged,
        EmptyAnswer,
        Event,
        MessageAppended,
        MessagesTruncated,
        MessageUpdated,
        Notice,
        RunCancelled,
        RunFailed,
        RunFinished,
        StreamBegan,
        StreamDelta,
        StreamEnded,
        StreamReasoning,
        ToolCallFinished,
        ToolCallProgress,
        ToolCallStarted,
        UsageReported,
        WaitingForProvider,
    )

_EVENTS = frozenset(
    {
        "AnswerMovedToReasoning",
        "CacheBreak",
        "ContextExceeded",
        "DialogChanged",
        "EmptyAnswer",
        "Event",
        "MessageAppended",
        "MessagesTruncated",
        "MessageUpdated",
        "Notice",
        "RunCancelled",
        "RunFailed",
        "RunFinished",
        "StreamBegan",
        "StreamDelta",
        "StreamEnded",
        "StreamReasoning",
        "ToolCallFinished",
        "ToolCallProgress",
        "ToolCallStarted",
        "UsageReported",
        "WaitingForProvider",
    }
)


_COMMANDS = frozenset(
    {"Command", "CommandParameter", "CommandProvider", "JSONSchema", "command", "command_to_function"}
)


def __getattr__(name: str) -> Any:
    if name in _EVENTS:
        from . import events

        return getattr(events, name)
    if name in _COMMANDS:
        from . import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FUNCTION_ID_PATTERN",
    "AnswerMovedToReasoning",
    "CacheBreak",
    "Capability",
    "Center",
    "Command",
    "CommandParameter",
    "CommandProvider",
    "ContextExceeded",
    "Dialog",
    "DialogChanged",
    "DialogSummary",
    "EmptyAnswer",
    "Event",
    "Function",
    "Image",
    "InvalidFunctionId",
    "JSONSchema",
    "MCPServer",
    "Message",
    "MessageAppended",
    "MessageUpdated",
    "MessagesTruncated",
    "ModelInfo",
    "NoModelAvailable",
    "Notice",
    "Prompt",
    "Provider",
    "Role",
    "RunCancelled",
    "RunFailed",
    "RunFinished",
    "SearchHit",
    "Skill",
    "StreamBegan",
    "StreamDelta",
    "StreamEnded",
    "StreamReasoning",
    "StreamText",
    "ToolCallFinished",
    "ToolCallProgress",
    "ToolCallStarted",
    "UsageReported",
    "WaitingForProvider",
    "check_function_id",
    "command",
    "command_to_function",
]
