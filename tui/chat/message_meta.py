"""What a message list shows around the message bodies: who spoke (the gutter), the meta line under a message —
its status ("streaming…", "interrupted", why the provider stopped an answer early) and ◀ n/m ▶ where branches
part — and the notice under the messages. Kept apart from `message_view` because none of it depends on the
body (Markdown, tool blocks, folding), so the list can use it without loading the Markdown machinery."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.events import Click
from textual.message import Message as TextualMessage
from textual.widgets import Static

from visindigo.engine import Message, Role
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench.context import context_marks

GUTTER = {
    Role.USER: "you",
    Role.PROMPT: "tpl",
    Role.ASSISTANT: "ai",
    Role.TOOL: "⚙",
    Role.SYSTEM: "sys",
}

#: How an answer the provider stopped early is marked, by the provider's finish reason (OpenAI's and
#: Anthropic's names); an ordinary stop ("stop", "end_turn", "tool_calls", ...) shows nothing.
CUT_SHORT = {
    "length": "cut short: output limit reached",
    "max_tokens": "cut short: output limit reached",
    "model_context_window_exceeded": "cut short: context window full",
    "content_filter": "stopped by a content filter",
    "refusal": "stopped: the model refused (content filter)",
}


def cut_short(message: Message) -> str:
    """Why the provider stopped this answer early ("" for an answer that ended normally)."""
    if message.role is not Role.ASSISTANT:
        return ""
    return CUT_SHORT.get(str(message.meta.get("finish_reason", "")), "")


def status_text(message: Message, *, streaming: bool) -> str:
    """The meta line's status: streaming, interrupted or incomplete, why an answer was cut short, and its marks
    in the context (pinned, a compaction summary)."""
    parts = []
    if streaming:
        parts.append("streaming…")
    status = message.meta.get("status", "")
    if status == "interrupted":
        parts.append("interrupted")
    elif status == "incomplete":
        parts.append("incomplete")
    if cut := cut_short(message):
        parts.append(cut)
    parts += context_marks(message)  # pinned; a compaction summary and what it replaced
    if origin := forked_from_mark(message):
        parts.append(origin)
    return " · ".join(parts)


def forked_from_mark(message: Message) -> str:
    """A tail fork's first message says where it was taken from, and how to go there (workbench.timeline)."""
    origin = message.meta.get("forked_from") if message.meta else None
    if not isinstance(origin, dict) or not isinstance(origin.get("dialog_id"), str):
        return ""
    title = clean_line(str(origin.get("title") or ""), 60)
    where = f"“{title}”" if title else "another dialog"
    try:
        number = f", message {int(origin.get('index', 0)) + 1}"
    except (TypeError, ValueError):
        number = ""
    return f"tail fork of {where}{number} · alt+↑ goes there"


class AlternativeSwitch(Horizontal):
    """◀ n/m ▶ : steps through the dialogs that part from this one at this message."""

    DEFAULT_CSS = """
    AlternativeSwitch {
        width: auto;
        height: 1;
    }
    AlternativeSwitch > Static {
        width: auto;
        color: $text-accent;
    }
    AlternativeSwitch > .arrow:hover {
        text-style: reverse;
    }
    """

    class Clicked(TextualMessage):
        """◀ (-1) or ▶ (+1) was clicked; the message view turns it into its `StepAlternative`."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, position: int, total: int) -> None:
        super().__init__()
        self.position = position
        self.total = total

    def compose(self) -> ComposeResult:
        yield Static(Content("◀"), classes="arrow previous")
        yield Static(Content(f" {self.position}/{self.total} "), classes="count")
        yield Static(Content("▶"), classes="arrow next")

    def on_click(self, event: Click) -> None:
        widget = event.widget
        if widget is None or not widget.has_class("arrow"):
            return
        event.stop()
        self.post_message(self.Clicked(-1 if widget.has_class("previous") else 1))


class Notice(Static):
    """A line under the messages: a failed run's reason, or how a cancelled one ended."""

    DEFAULT_CSS = """
    Notice {
        width: 1fr;
        color: $text-error;
        padding: 0 1;
        margin: 0 0 1 4;
        border-left: thick $error;
    }
    Notice.-info {
        color: $text-muted;
        border-left: thick $panel;
    }
    """
