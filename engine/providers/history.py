"""Making a dialog's history safe to send, whatever happened to it before.

The APIs reject an assistant message whose tool calls are not all answered before the next message, and a tool
result without the call it answers (protocols.md §A). The run loop never leaves such a history behind, but
dialogs come from files, old versions, other tools and crashes; an unsendable history would make the dialog
unusable for good. So before each request, calls without a result get a synthetic "no result" answer, orphan
results are dropped, and empty assistant messages (a reasoning-only interrupted answer) are left out.
"""

from __future__ import annotations

from ..message import Message, Role

__all__ = ["MISSING_RESULT", "sendable_history"]

MISSING_RESULT = '{"error":"no result was recorded for this call"}'


def sendable_history(messages: list[Message]) -> list[Message]:
    """`messages` with every tool call answered right after its assistant message."""
    result: list[Message] = []
    open_calls: dict[str, str] = {}  # id -> name, of the last assistant message's unanswered calls

    def close_open_calls() -> None:
        for call_id, name in open_calls.items():
            result.append(Message(Role.TOOL, MISSING_RESULT, name=name, tool_call_id=call_id))
        open_calls.clear()

    for message in messages:
        if message.role is Role.TOOL:
            if message.tool_call_id in open_calls:
                del open_calls[message.tool_call_id]
                result.append(message)
            continue
        close_open_calls()
        if message.role is Role.ASSISTANT:
            calls = message.parsed_tool_calls()
            if not calls and not message.content:
                continue
            for call in calls:
                function = call.get("function")
                name = function.get("name", "") if isinstance(function, dict) else ""
                open_calls[str(call.get("id", ""))] = str(name)
        result.append(message)
    close_open_calls()
    return result
