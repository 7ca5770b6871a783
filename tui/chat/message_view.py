"""One message of the dialog on screen: a gutter naming who spoke, and the body.

Assistant text is Markdown (links never open by themselves: a click posts `Markdown.LinkClicked`, which the
screen turns into a confirmation); user text is shown exactly as typed; a tool result is a collapsible block
with the call's name, arguments, result, duration and error state. Everything shown passes through
`sanitize.clean`, and every piece of text goes in as `Content`, so model output can neither send escape
sequences to the terminal nor be read as Textual markup.

A streaming reply is a view without an index yet: text arrives through `write`, once per frame (the pane's frame
timer batches it, so Textual's `MarkdownStream` would add nothing but a task), and `finish` binds it to the
message the dialog appended and shows its final render.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.events import Click
from textual.message import Message as TextualMessage
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from visindigo.engine import Message, Role
from visindigo.tui.chat.long_text import FOLD_LIMIT, MARKDOWN_LIMIT, FoldNote, LongText, fold
from visindigo.tui.chat.markdown.live_markdown import LiveMarkdown
from visindigo.tui.chat.tool_block import call_signature, tool_block
from visindigo.tui.common.sanitize import StreamCleaner, clean
from visindigo.tui.workbench.context import context_marks

#: Tool calls of one reply listed under it; the rest are counted.
CALLS_SHOWN = 12

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
        view = next((a for a in self.ancestors if isinstance(a, MessageView)), None)
        if view is not None:
            view.post_message(MessageView.StepAlternative(view, -1 if widget.has_class("previous") else 1))


class MessageView(Widget):
    """A message on screen. The message pane's cursor picks one to act on (copy, edit, regenerate, ...)."""

    DEFAULT_CSS = """
    MessageView {
        height: auto;
        layout: horizontal;
        padding: 0 1 0 0;
        margin: 0 0 1 0;
    }
    MessageView > .gutter {
        width: 4;
        color: $text-muted;
        text-style: bold;
    }
    MessageView.-user > .gutter, MessageView.-prompt > .gutter { color: $text-primary; }
    MessageView.-assistant > .gutter { color: $text-success; }
    MessageView.-tool > .gutter { color: $text-warning; }
    MessageView.-cursor > .gutter {
        background: $primary 30%;  /* 30%: the role word on it keeps 4.5:1 in every built-in theme */
    }
    MessageView.-cursor > .gutter:ansi {
        background: $block-cursor-background;  /* an ANSI colour has no 30%: the list cursor's pair instead */
        color: $block-cursor-foreground;
    }
    MessageView.-cursor > .gutter:nocolor {
        text-style: bold reverse;  /* NO_COLOR: the cursor shows without a colour */
    }
    MessageView > .main {
        width: 1fr;
        height: auto;
    }
    MessageView .plain {
        width: 1fr;
    }
    MessageView Markdown {
        margin: 0;
        padding: 0;
        background: transparent;
    }

    MessageView .meta {
        height: 1;
        width: 1fr;
        color: $text-muted;
        display: none;
    }
    MessageView .meta.-shown {
        display: block;
    }
    MessageView .meta > .status {
        width: 1fr;
    }
    MessageView.-interrupted .status, MessageView.-failed .status, MessageView.-cut-short .status {
        color: $text-warning;
    }
    MessageView Collapsible {
        background: transparent;
        border-top: none;
        padding: 0;
    }
    MessageView CollapsibleTitle, MessageView .calls {
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

    class StepAlternative(TextualMessage):
        """◀ or ▶ was clicked: open the previous (-1) or next (+1) alternative at this message."""

        def __init__(self, view: MessageView, step: int) -> None:
            super().__init__()
            self.view = view
            self.step = step

        @property
        def control(self) -> MessageView:
            return self.view

    def __init__(self, message: Message, index: int | None, *, streaming: bool = False) -> None:
        role_class = f"-{message.role.name.lower()}"
        super().__init__(classes=role_class)
        self.message = message
        self.index = index
        self.streaming = streaming
        #: For a tool result: the id of the call (a block may exist before its message does).
        self.call_id = message.tool_call_id
        #: The Markdown the reply streams into, while it streams.
        self._stream: LiveMarkdown | None = None
        self._cleaner: StreamCleaner | None = None
        self._alternatives: tuple[int, int] | None = None
        self._tool_state: dict[str, Any] = {}
        #: A message longer than FOLD_LIMIT shows its beginning until enter unfolds it (see long_text).
        self._unfolded = False
        self._received = 0
        self._set_status_classes()

    # --- composing ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Content(GUTTER.get(self.message.role, "?")), classes="gutter")
        with Vertical(classes="main"):
            yield from self._compose_body()
            with Horizontal(classes="meta"):
                yield Static(Content(""), classes="status")

    def _compose_body(self) -> ComposeResult:
        message = self.message
        if message.role is Role.ASSISTANT:
            if message.content or self.streaming or not message.tool_calls:
                text, hidden = self._shown(message.content)
                if self._unfolded and len(text) > FOLD_LIMIT:
                    yield LongText(text, markdown=len(text) <= MARKDOWN_LIMIT, classes="body")
                else:
                    yield LiveMarkdown(text, live=self.streaming, classes="body")
                if hidden:
                    yield FoldNote(hidden)
            calls = message.parsed_tool_calls()
            for call in calls[:CALLS_SHOWN]:
                function = call.get("function") or {}
                signature = call_signature(str(function.get("name", "?")), function.get("arguments") or "")
                yield Static(Content.assemble(("→ ", "dim"), signature), classes="plain calls")
            if len(calls) > CALLS_SHOWN:
                yield Static(Content(f"→ … and {len(calls) - CALLS_SHOWN:,} more calls"), classes="plain calls")
        elif message.role is Role.TOOL:
            yield tool_block(self.message, self._tool_state)
        else:
            text, hidden = self._shown(message.content)
            if message.role is Role.PROMPT and message.name:
                text = f"[{clean(message.name)}]\n{text}"
            if len(text) > FOLD_LIMIT:
                yield LongText(text, classes="plain body")
            else:
                yield Static(Content(text), classes="plain body")
            if hidden:
                yield FoldNote(hidden)

    def _shown(self, content: str) -> tuple[str, int]:
        """The cleaned text to show and how many characters are folded away (0 once unfolded)."""
        if self._unfolded or len(content) <= FOLD_LIMIT:
            return clean(content), 0
        head, hidden = fold(content)
        return clean(head), hidden

    @property
    def folds(self) -> bool:
        """Whether this message is long enough to be folded."""
        return len(self.message.content) > FOLD_LIMIT

    def on_mount(self) -> None:
        self._refresh_meta()

    # --- state shown in the meta line --------------------------------------------------------------------

    def _cut_short(self) -> str:
        """Why the provider stopped this answer early ("" for an answer that ended normally)."""
        if self.message.role is not Role.ASSISTANT:
            return ""
        return CUT_SHORT.get(str(self.message.meta.get("finish_reason", "")), "")

    def _set_status_classes(self) -> None:
        status = self.message.meta.get("status", "")
        self.set_class(status == "interrupted", "-interrupted")
        self.set_class(status == "incomplete", "-failed")
        self.set_class(bool(self._cut_short()), "-cut-short")
        # (no class marks a streaming view: a class change restyles every block of the message, which was most
        # of the final render's cost)

    def _status_text(self) -> str:
        parts = []
        if self.streaming:
            parts.append("streaming…")
        status = self.message.meta.get("status", "")
        if status == "interrupted":
            parts.append("interrupted")
        elif status == "incomplete":
            parts.append("incomplete")
        if cut := self._cut_short():
            parts.append(cut)
        parts += context_marks(self.message)  # pinned; a compaction summary and what it replaced
        return " · ".join(parts)

    def _refresh_meta(self) -> None:
        try:
            meta = self.query_one(".meta", Horizontal)
        except NoMatches:  # not composed yet: on_mount will do it
            return
        status = self._status_text()
        shown = meta.query(".status")
        if not shown:  # the meta line's own children are not mounted yet (it can lag the view's mount): once they are
            self.call_after_refresh(self._refresh_meta)
            return
        shown.first(Static).update(Content(status))
        existing = meta.query(AlternativeSwitch)
        if self._alternatives is None:
            existing.remove()
        else:
            position, total = self._alternatives
            switch = existing.first() if existing else None
            if switch is None or (switch.position, switch.total) != (position, total):
                existing.remove()
                meta.mount(AlternativeSwitch(position, total))
        meta.set_class(bool(status) or self._alternatives is not None, "-shown")

    def set_alternatives(self, position: int, total: int) -> None:
        """Show ◀ position/total ▶ (1-based); `total` < 2 hides it."""
        self._alternatives = (position, total) if total > 1 else None
        self._refresh_meta()

    @property
    def alternatives(self) -> tuple[int, int] | None:
        return self._alternatives

    def prepare(self, *, alternatives: tuple[int, int] | None = None, **tool_state: Any) -> None:
        """What a view shows from its first frame, set before it is mounted (nothing is redrawn): the ◀ n/m ▶
        of its alternatives, and for a tool block the call's name, arguments and whether it runs."""
        if alternatives is not None:
            self._alternatives = alternatives
        self._tool_state.update(tool_state)

    # --- streaming -----------------------------------------------------------------------------------------

    def start_stream(self) -> bool:
        """Begin receiving the answer piece by piece (the view was made with `streaming=True`).

        False when the view has no body to stream into: it was removed before it composed, which happens when
        its list goes away (a screen closing) just as a stream opens.
        """
        try:
            body = self.query_one(LiveMarkdown)
        except NoMatches:
            return False
        self._cleaner = StreamCleaner()
        self._stream = body
        return True

    async def write(self, fragment: str) -> None:
        """Append raw answer text (cleaned here; an escape sequence split across calls is still caught)."""
        if self._stream is None or self._cleaner is None:
            return
        text = self._cleaner.feed(fragment)
        if not text:
            return
        self._received += len(text)
        shown = len(self.message.content)
        if shown < FOLD_LIMIT:  # past the fold only the count moves: a 5 MB reply never reaches the Markdown
            head = text[: FOLD_LIMIT - shown]
            self.message.content += head
            if head:
                await self._stream.stream_append(head)
        if self._received > FOLD_LIMIT:
            hidden = self._received - len(self.message.content)
            notes = self.query(FoldNote)
            if notes:
                notes.first().show(hidden, receiving=True)
            else:
                await self.query_one(".main", Vertical).mount(FoldNote(hidden, receiving=True), before=".meta")

    def streamed_lines(self) -> tuple[int, int]:
        """(lines the streamed text takes, lines its Markdown widget occupies including reserved room)."""
        markdown = self.query_one(Markdown)
        blocks = list(markdown.children)
        last = blocks[-1] if blocks else None
        if last is not None and last.region and markdown.region:
            # (from where the last block ends: the margins between blocks are lines too, and counting only
            # the blocks' heights left the reserved room short, so the pane grew and scrolled every frame)
            used = last.region.bottom + last.styles.margin.bottom - markdown.content_region.y
        else:
            used = sum(block.outer_size.height + block.styles.margin.height for block in blocks)
        return used, markdown.outer_size.height

    def reserve_lines(self, lines: int | None) -> None:
        """Keep the Markdown widget at least `lines` tall (None: as tall as its text).

        The room is on the Markdown widget itself, not on this view: a widget whose size changes is redrawn
        whole, so the growing text must stay inside a widget whose size does not change from frame to frame.
        """
        self.query_one(Markdown).styles.min_height = lines

    async def stop_stream(self) -> None:
        """Stop taking text (what was written is already drawn: each `write` appends it whole)."""
        self._stream = None
        self._cleaner = None

    async def finish(self, message: Message, index: int) -> None:
        """Bind the streamed view to the dialog's message and show its final render: the streamed blocks as
        they are, their code coloured in place when it is ready (in a thread), when they are the message's
        text, else the message rendered in full.

        The room reserved under the streamed text and the "streaming…" line go only after the colours are
        shown: giving the room back moves the whole pane (a full repaint), which held the colours back."""
        await self.stop_stream()
        self.streaming = False
        self.index = index
        self.message = message
        self._set_status_classes()
        markdowns = self.query(LiveMarkdown)
        if markdowns and (message.content or not message.tool_calls):
            markdown = markdowns.first()
            text, hidden = self._shown(message.content)
            if not hidden and markdown.live and text.startswith(markdown.source) and text != markdown.source:
                await markdown.stream_append(text[len(markdown.source) :])  # text not flushed yet: no full render
            if hidden or not markdown.colour_in_place(text, then=self._settle):
                self._settle()
                markdown.live = False
                await markdown.update(text)
            await self.query(".calls, FoldNote").remove()
            if hidden:
                await self.query_one(".main", Vertical).mount(FoldNote(hidden), before=".meta")
            main = self.query_one(".main", Vertical)
            meta = main.query_one(".meta")
            widgets = [w for w in self._compose_body() if not isinstance(w, Markdown)]
            if widgets:
                await main.mount_all(widgets, before=meta)
        else:
            self.reserve_lines(None)
            await self.recompose_body()
            self._refresh_meta()

    def _settle(self) -> None:
        """The streamed reply at rest: no room reserved for more text, the meta line without "streaming…"."""
        if not self.is_attached or self.streaming:
            return
        for markdown in self.query(LiveMarkdown):
            markdown.styles.min_height = None
            markdown.settle_tail()
            _trim_outer_margins(markdown, last=True)  # (a streamed reply's final render posts no new contents)
        self._refresh_meta()

    async def abandon(self) -> None:
        """The stream produced no message (an empty answer): stop and leave."""
        await self.stop_stream()
        await self.remove()

    async def recompose_body(self) -> None:
        """Rebuild the body from `self.message` (after it was rewritten)."""
        main = self.query_one(".main", Vertical)
        meta = main.query_one(".meta")
        for child in list(main.children):
            if child is not meta:
                await child.remove()
        await main.mount_all(list(self._compose_body()), before=meta)
        self._set_status_classes()
        self._refresh_meta()

    async def update_message(self, message: Message) -> None:
        self.message = message
        self.call_id = message.tool_call_id or self.call_id
        await self.recompose_body()

    # --- tool calls ----------------------------------------------------------------------------------------

    async def set_tool_state(self, **state: Any) -> None:
        """Update a tool block: name, arguments, running, result, is_error, duration."""
        self._tool_state.update(state)
        collapsed = True
        existing = self.query(Collapsible)
        if existing:
            collapsed = existing.first().collapsed
        await self.recompose_body()
        for block in self.query(Collapsible):
            block.collapsed = collapsed

    # --- actions ---------------------------------------------------------------------------------------------

    def copy_text(self) -> str:
        """The text copying this message gives (tool results: the result; calls: their JSON)."""
        message = self.message
        if message.role is Role.TOOL:
            return clean(str(self._tool_state.get("result", message.content)))
        if message.content:
            return clean(message.content)
        return message.tool_calls

    def on_markdown_table_of_contents_updated(self, event: Markdown.TableOfContentsUpdated) -> None:
        """A render finished: drop the outer margins of the first and last block, so the text starts beside
        the gutter and no blank line is added under the message.

        Done with inline styles rather than :first-child / :last-child rules: those make Textual restyle
        every block of the message each time one is mounted, which is most of the cost of a stream.
        """
        event.stop()
        _trim_outer_margins(event.markdown, last=not self.streaming)

    async def toggle_fold(self) -> bool:
        """Show all of a folded message, or fold it again; False when it is not long enough to fold."""
        if not self.folds or self.streaming:
            return False
        self._unfolded = not self._unfolded
        await self.recompose_body()
        return True

    def toggle_tool(self) -> bool:
        """Expand or collapse this view's tool block, or unfold a long message; False when it has neither."""
        if self.folds and not self.query(Collapsible):
            self.run_worker(self.toggle_fold(), group="fold", exclusive=True, exit_on_error=False)
            return True
        blocks = self.query(Collapsible)
        for block in blocks:
            block.collapsed = not block.collapsed
        return bool(blocks)

    def set_cursor(self, on: bool) -> None:
        self.set_class(on, "-cursor")

    def on_click(self) -> None:
        pane = self.parent
        select = getattr(pane, "select_view", None)
        if callable(select):
            select(self)


def _trim_outer_margins(markdown: Markdown, *, last: bool) -> None:
    """No margin above the first block of a message, and (`last`) none under its last one."""
    blocks = markdown.children
    if blocks:
        _top, right, bottom, left = blocks[0].styles.margin  # (textual-speedups' Spacing cannot be sliced)
        blocks[0].styles.margin = (0, right, bottom, left)
        if last:
            top, right, _bottom, left = blocks[-1].styles.margin
            blocks[-1].styles.margin = (top, right, 0, left)
