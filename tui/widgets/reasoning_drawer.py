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

from ..sanitize import StreamCleaner, clean


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
