"""The reasoning drawer: the thinking behind the message under the cursor, live while it streams.

Reasoning is plain text to us (models write loose Markdown in it, but it is a scratchpad, not an answer), so
it is shown as `Content` after cleaning; streaming appends to a list and re-renders at the screen's frame
rate, never per token.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from visindigo.engine import Dialog, Role

from ..sanitize import StreamCleaner, clean
from ..workbench import RunState
from .message_pane import MessagePane


def drawer_title(index: int) -> str:
    """The drawer's one-line title for message `index` (the model is in the status line: no room for it)."""
    return f"reasoning · message {index + 1}"


class ReasoningDrawer(Vertical):
    """Shows one message's reasoning; `follow_stream` makes it track the answer being generated."""

    DEFAULT_CSS = """
    ReasoningDrawer {
        width: 32;
        height: 1fr;
        border-left: solid $panel;
        padding: 0 0 0 1;
    }
    ReasoningDrawer > .title {
        color: $text-muted;
        text-style: bold;
        height: 1;
    }
    ReasoningDrawer > VerticalScroll {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    ReasoningDrawer .text {
        color: $text-muted;
        text-style: italic;
    }
    ReasoningDrawer .empty {
        color: $text-disabled;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title = Static(Content("reasoning"), classes="title")
        self._text = Static(Content(""), classes="text")
        self._scroll = VerticalScroll(self._text, can_focus=False)
        self._parts: list[str] = []
        self._cleaner: StreamCleaner | None = None
        self._round = -1
        self._shown = 0
        #: What the drawer shows: "stream" (the answer being generated) or "message" (the cursor's).
        self.source = "message"

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._scroll

    @property
    def title(self) -> str:
        """The drawer's title line as shown ("reasoning · message 4", "reasoning · live")."""
        return str(self._title.content)

    @property
    def text(self) -> str:
        """What the drawer shows now (without the placeholder)."""
        return "".join(self._parts)

    def show(self, reasoning: str, title: str = "reasoning") -> None:
        """Show a finished message's reasoning."""
        self.source = "message"
        self._cleaner = None
        self._parts = [clean(reasoning)] if reasoning else []
        self._scroll.anchor(False)
        self._title.update(Content(title))
        self._render_text()
        self._scroll.scroll_home(animate=False, immediate=True)

    def show_latest(self, dialog: Dialog) -> None:
        """The reasoning of the dialog's last answer."""
        index = dialog.find_last_assistant_message()
        if index >= 0:
            self.show(dialog.message_at(index).reasoning, drawer_title(index))
        else:
            self.show("", "reasoning")

    def show_at(self, dialog: Dialog, index: int) -> None:
        """The reasoning of the answer at `index`; on a question or a tool result, that of the answer that follows
        it (never what it showed before, which may belong to another dialog)."""
        answer = index
        for position in range(index, dialog.message_count):
            role = dialog.message_at(position).role
            if role is Role.ASSISTANT:
                answer = position
                break
            if position > index and role in (Role.USER, Role.PROMPT):
                break
        message = dialog.message_at(answer)
        self.show(message.reasoning if message.role is Role.ASSISTANT else "", drawer_title(answer))

    def follow_pane(self, pane: MessagePane, report: MessagePane.StreamReport | MessagePane.CursorMoved) -> None:
        """Keep showing the reasoning of what `pane` is on: the answer under its cursor, or the one streaming."""
        match report:
            case MessagePane.CursorMoved(view=view) if view is not None and report.dialog is not None:
                if view.index is not None:
                    self.show_at(report.dialog, view.index)
                elif (run := pane.workbench.runs.get(report.dialog.id)) is not None and run.streaming:
                    self.follow_run(run)
            case MessagePane.StreamStarted(round=round_number):
                if self._follows_stream(pane, report.dialog):
                    self.start_stream(round_number)
            case MessagePane.Frame(run=run):
                self.feed(run.round, run.reasoning_parts)
            case MessagePane.AnswerArrived(index=index) if self.source == "stream":
                self.show(report.dialog.message_at(index).reasoning, drawer_title(index))
            case MessagePane.RunDone() if self.source == "stream":
                self.show_latest(report.dialog)

    def _follows_stream(self, pane: MessagePane, dialog: Dialog) -> bool:
        """The drawer follows the answer being generated unless the user put the cursor on an older message.

        The cursor on the question just sent, or on the message that was last before it, is not "older": the
        user was reading the end of the dialog, and that is where the answer appears. Nor is a drawer that
        shows the latest answer (it followed the last run to its end), wherever the cursor was left.
        """
        cursor = pane.cursor
        if self.source == "stream" or cursor is None or cursor.index is None:
            return True
        if cursor.index >= dialog.message_count - 2:
            return True
        latest = dialog.find_last_assistant_message()
        return latest >= 0 and self.title == drawer_title(latest)

    def follow_run(self, run: RunState) -> None:
        """Show the reasoning of the answer `run` is streaming, from its beginning."""
        self.start_stream(run.round)
        self.feed(run.round, run.reasoning_parts)

    def start_stream(self, round_number: int, title: str = "reasoning · live") -> None:
        self.source = "stream"
        self._round = round_number
        self._shown = 0
        self._parts = []
        self._cleaner = StreamCleaner()
        self._scroll.anchor(False)
        self._title.update(Content(title))
        self._render_text()

    def feed(self, round_number: int, parts: list[str]) -> bool:
        """Take the reasoning parts of the streaming round not shown yet; True if anything changed."""
        if self.source != "stream" or round_number != self._round or self._cleaner is None:
            return False
        if len(parts) <= self._shown:
            return False
        fresh = self._cleaner.feed("".join(parts[self._shown :]))
        self._shown = len(parts)
        if fresh:
            self._parts.append(fresh)
            self._render_text()
        return bool(fresh)

    def _render_text(self) -> None:
        if self._parts:
            self._text.update(Content("".join(self._parts)))
            self._text.set_classes("text")
        else:  # live: nothing yet (it may come); a finished message: there is none
            empty = "No reasoning yet." if self.source == "stream" else "No reasoning for this message."
            self._text.update(Content(empty))
            self._text.set_classes("empty")
        if self.source == "stream":
            self.call_after_refresh(self._follow_stream)

    def _follow_stream(self) -> None:
        """Keep live reasoning in view once it is longer than the drawer, and read from the top until then.

        Textual's anchor sits short content at the bottom of the view (right for a chat, odd for notes), so
        the drawer anchors only when the text overflows.
        """
        if self.source != "stream" or self._scroll.is_anchored:
            return
        if self._text.outer_size.height > self._scroll.scrollable_content_region.height:
            self._scroll.anchor()
