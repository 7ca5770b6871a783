"""A tool call on screen: the title line that summarises it and the collapsible block with its arguments and
result. Everything shown is cleaned (`sanitize.clean`) and goes in as `Content`: arguments are the model's, the
result is the tool's, and neither may reach the terminal as escape sequences or be read as markup."""

from __future__ import annotations

import json
from typing import Any

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Collapsible, Static

from visindigo.engine import Message
from visindigo.tui.common.sanitize import clean
from visindigo.tui.platform.typing_gaps import collapsible_title

#: Characters of a tool result or arguments shown in a block; the model received all of it.
TOOL_TEXT_LIMIT = 20_000
#: Characters of a tool call summary in the block's title line.
SUMMARY_LIMIT = 60
#: Tool calls of one reply listed under it; the rest are counted.
CALLS_SHOWN = 12


def clip(text: str, limit: int) -> str:
    """At most `limit` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit:,} more characters)"


def one_line(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """A single-line summary of `text` for a title bar."""
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_arguments(arguments: dict[str, Any] | str) -> str:
    """Arguments as indented JSON for the block's body (text that is not JSON is shown as it is)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return clean(str(arguments))
    if not arguments:
        return "(no arguments)"
    try:
        return clean(json.dumps(arguments, indent=2, ensure_ascii=False))
    except (TypeError, ValueError):
        return clean(repr(arguments))


def format_duration(seconds: object) -> str:
    """How long a tool call took, as its block's title shows it ("" when unknown: older stored results)."""
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or seconds < 0:
        return ""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.1f} s" if seconds < 100 else f"{seconds:.0f} s"


def looks_like_error(result: str) -> bool:
    """Whether a stored tool result is one of the engine's error results (`{"error": ...}`: invalid arguments,
    a failed or unknown tool, a denied or cancelled call), for messages that no longer carry the live flag."""
    if not result.startswith("{") or '"error"' not in result:
        return False
    try:
        value = json.loads(result)
    except ValueError:
        return False
    return isinstance(value, dict) and set(value) == {"error"}


def call_signature(name: str, arguments: dict[str, Any] | str) -> str:
    """`name(key="value", ...)`, shortened, as the block's title shows it."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return f"{clean(name)}({one_line(str(arguments), 30)})"
    if isinstance(arguments, dict):
        inner = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
    else:
        inner = json.dumps(arguments, ensure_ascii=False)
    return f"{clean(name)}({one_line(inner, 40)})"


def call_lines(message: Message) -> list[Static]:
    """The lines under a reply naming the tool calls it asked for (`CALLS_SHOWN` of them, the rest counted)."""
    calls = message.parsed_tool_calls()
    lines = []
    for call in calls[:CALLS_SHOWN]:
        function = call.get("function") or {}
        signature = call_signature(str(function.get("name", "?")), function.get("arguments") or "")
        lines.append(Static(Content.assemble(("→ ", "dim"), signature), classes="plain calls"))
    if len(calls) > CALLS_SHOWN:
        lines.append(Static(Content(f"→ … and {len(calls) - CALLS_SHOWN:,} more calls"), classes="plain calls"))
    return lines


class ToolBody(Vertical):
    """Arguments and result of a tool call, inside the collapsible block."""

    DEFAULT_CSS = """
    ToolBody { height: auto; }
    ToolBody > .label { color: $text-muted; }
    ToolBody > .code { background: $background; padding: 0 1; }
    """


class ToolBlock(Collapsible):
    """The collapsible block of a tool call, as a message view shows it."""

    SCOPED_CSS = False
    DEFAULT_CSS = """
    MessageView Collapsible {
        background: transparent;
        border-top: none;
        padding: 0;
    }
    MessageView CollapsibleTitle {
        text-wrap: nowrap;
        text-overflow: ellipsis;  /* a tool line cut at the pane's edge ends in …, never looks whole */
    }
    MessageView CollapsibleTitle {
        width: 100%;
    }
    MessageView Collapsible.-error CollapsibleTitle {
        color: $text-error;
    }
    MessageView Collapsible.-running CollapsibleTitle {
        color: $text-accent;
    }
    MessageView Collapsible Contents {
        padding: 0 0 0 2;
    }
    """


def tool_block(message: Message, state: dict[str, Any]) -> ToolBlock:
    """The collapsible block of a tool call: its signature, duration and result as the title (while it runs, its
    progress and then its signature, or its signature and "running…"), the arguments and the result inside.
    `state` holds what the live run knows and the stored message does not."""
    name = str(state.get("name") or message.name or message.meta.get("function_id") or "tool")
    arguments = state.get("arguments", message.meta.get("arguments", ""))
    running = bool(state.get("running"))
    result = state.get("result", message.content)
    is_error = bool(state.get("is_error", message.meta.get("is_error", looks_like_error(str(result)))))
    duration = state.get("duration", message.meta.get("duration"))
    if message.meta.get("over_cap"):
        name = "not run"
        arguments = "over the max_tool_calls cap: these calls and the ones after it got that as their result"
    if running and state.get("progress"):  # first: a long signature cut at the pane's edge must not hide the bar
        title = Content.assemble(str(state["progress"]), ("  ", ""), call_signature(name, arguments))
    elif running:
        title = Content.assemble(call_signature(name, arguments), ("  ", ""), "running…")
    else:  # the duration before the result, so a long result cut off at the edge does not hide it
        took = format_duration(duration)
        tail = (f"{took}  " if took else "") + ("✗ " if is_error else "→ ") + one_line(str(result), 40)
        title = Content.assemble(call_signature(name, arguments), ("  ", ""), tail)
    body = ToolBody(
        Static(Content("arguments"), classes="label"),
        Static(Content(clip(format_arguments(arguments), TOOL_TEXT_LIMIT)), classes="code"),
        Static(Content("error" if is_error else "result"), classes="label"),
        Static(Content(clip(clean(str(result)), TOOL_TEXT_LIMIT) or "(empty)"), classes="code"),
    )
    classes = "-error" if is_error else ("-running" if running else "")
    block = ToolBlock(body, title=collapsible_title(title), collapsed=True, classes=classes)
    return block
