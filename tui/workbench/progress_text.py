"""How a run's progress reads: a running tool's line (a bar when the total is known, the server's message) and
the notes a run leaves for the user (another model answered, an empty answer, waiting for the provider).

The engine's events carry the facts; these are the UI's words for them, one place for the panes and the plain
line mode alike, sanitised here where the text leaves for a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from visindigo.tui.common.sanitize import clean

if TYPE_CHECKING:
    from visindigo.engine.events import Event, ToolCallProgress

BAR_CELLS = 10


def progress_line(progress: float, total: float | None, message: str) -> str:
    """`▕████░░░░░░▏ 4/10 copying` — or `4 · copying` when the server gives no total."""
    text = clean(message).replace("\n", " ")[:60]
    if total:
        share = max(0.0, min(1.0, progress / total))
        filled = round(share * BAR_CELLS)
        bar = "▕" + "█" * filled + "░" * (BAR_CELLS - filled) + "▏"
        return f"{bar} {progress:g}/{total:g} {text}".rstrip()
    return f"{progress:g} · {text}".rstrip(" ·") + " …"


def tool_progress_line(event: ToolCallProgress) -> str:
    """The line a tool's block shows for the engine's `ToolCallProgress`."""
    return progress_line(event.progress, event.total, event.message)


def empty_answer_note(finish_reason: str, output_tokens: int) -> str:
    """The mark an empty round leaves in the dialog: what the server said, so a proxy's swallowed failure shows."""
    reason = clean(finish_reason) or "none"
    return f"The model returned an empty answer — finish reason {reason}, {output_tokens} tokens."


def note_line(event: Event) -> str:
    """What the user reads for an engine event that is a note about the run ("" for any other event):
    `Notice` (and `CacheBreak`) as worded, `EmptyAnswer` with the server's reason, `WaitingForProvider`."""
    from visindigo.engine.events import EmptyAnswer, Notice, WaitingForProvider

    match event:
        case WaitingForProvider(provider_name=name):
            return f"waiting for {clean(name)}…"
        case Notice(text=text):
            return clean(text)
        case EmptyAnswer(finish_reason=reason, output_tokens=tokens):
            return empty_answer_note(reason, tokens)
    return ""


def is_waiting(event: Event) -> bool:
    """A note that goes away when the run gets its turn (the next `StreamBegan`)."""
    from visindigo.engine.events import WaitingForProvider

    return isinstance(event, WaitingForProvider)
