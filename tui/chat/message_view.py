"""One message of the dialog on screen: a gutter naming who spoke, and the body.

Assistant text is Markdown (links never open by themselves: a click posts `Markdown.LinkClicked`, which the
screen turns into a confirmation); user text is shown exactly as typed; a tool result is a collapsible block
with the call's name, arguments, result, duration and error state. Everything shown passes through
`sanitize.clean`, and every piece of text goes in as `Content`, so model output can neither send escape
sequences to the terminal nor be read as Textual markup.

A streaming reply is a view without an index yet: text arrives through `write`, once per frame (the pane's frame
timer batches it), into a `LiveMarkdown` whose growing end its `StreamTail` draws; `finish` binds the view to
the message the dialog appended and shows its final render.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.message import Message as TextualMessage
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from visindigo.engine import Message, Role
from visindigo.tui.chat.attachments.lines import attachment_widgets
from visindigo.tui.chat.markdown.live_markdown import LiveMarkdown
from visindigo.tui.chat.markdown.long_text import FOLD_LIMIT, MARKDOWN_LIMIT, FoldNote, LongText, fold_middle
from visindigo.tui.chat.message_meta import GUTTER, AlternativeSwitch, cut_short, status_text
from visindigo.tui.chat.tool_block import call_lines, tool_block
from visindigo.tui.common.sanitize import StreamCleaner, clean

__all__ = ["AlternativeSwitch", "MessageView"]


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
    MessageView > .main { width: 1fr; height: auto; }
    MessageView .plain { width: 1fr; }
    MessageView Markdown { margin: 0; padding: 0; background: transparent; }
    MessageView .meta {
        height: 1;
        width: 1fr;
        color: $text-muted;
        display: none;
    }
    MessageView .meta.-shown { display: block; }
    MessageView .meta > .status { width: 1fr; }
    MessageView.-interrupted .status, MessageView.-failed .status, MessageView.-cut-short .status {
        color: $text-warning;
    }
    MessageView .calls {
        text-wrap: nowrap;
        text-overflow: ellipsis;  /* a call's line cut at the pane's edge ends in …, never looks whole */
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
        #: The Markdown the reply streams into (its growing end drawn by its `StreamTail`), while it streams.
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
                text, hidden, end = self._shown(message.content)
                if self._unfolded and len(text) > FOLD_LIMIT:
                    yield LongText(text, markdown=len(text) <= MARKDOWN_LIMIT, classes="body")
                else:
                    yield LiveMarkdown(text, live=self.streaming, classes="body")
                if hidden:
                    yield FoldNote(hidden)
                    yield LiveMarkdown(end, classes="body end")
            yield from call_lines(message)
        elif message.role is Role.TOOL:
            yield tool_block(self.message, self._tool_state)
        else:
            text, hidden, end = self._shown(message.content)
            if message.role is Role.PROMPT and message.name:
                text = f"[{clean(message.name)}]\n{text}"
            if len(text) > FOLD_LIMIT:
                yield LongText(text, classes="plain body")
            else:
                yield Static(Content(text), classes="plain body")
            if hidden:
                yield FoldNote(hidden)
                yield Static(Content(end), classes="plain body end")
            if message.attachments:
                yield from attachment_widgets(message)

    def _shown(self, content: str) -> tuple[str, int, str]:
        """The cleaned text to show, how many characters are folded away after it (0 once unfolded) and the
        end shown under the fold (see `long_text.fold_middle`)."""
        if self._unfolded or len(content) <= FOLD_LIMIT:
            return clean(content), 0, ""
        head, hidden, end = fold_middle(content)
        return clean(head), hidden, clean(end)

    @property
    def folds(self) -> bool:
        """Whether this message is long enough to be folded."""
        return len(self.message.content) > FOLD_LIMIT

    def on_mount(self) -> None:
        self._refresh_meta()

    # --- state shown in the meta line --------------------------------------------------------------------

    def _set_status_classes(self) -> None:
        status = self.message.meta.get("status", "")
        self.set_class(status == "interrupted", "-interrupted")
        self.set_class(status == "incomplete", "-failed")
        self.set_class(bool(cut_short(self.message)), "-cut-short")
        # (no class marks a streaming view: a class change restyles every block of the message, which was most
        # of the final render's cost)

    def _refresh_meta(self) -> None:
        try:
            meta = self.query_one(".meta", Horizontal)
        except NoMatches:  # not composed yet: on_mount will do it
            return
        status = status_text(self.message, streaming=self.streaming)
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
                await self._stream.stream(head)
        if self._received > FOLD_LIMIT:
            hidden = self._received - len(self.message.content)
            notes = self.query(FoldNote)
            if notes:
                notes.first().show(hidden, receiving=True)
            else:
                await self.query_one(".main", Vertical).mount(FoldNote(hidden, receiving=True), before=".meta")

    def stream_room(self, rows: int) -> None:
        """Keep `rows` blank lines under the streaming text (the pane's choice: see `MessageList._reserve_room`)."""
        if self._stream is not None and (tail := self._stream.tail) is not None:
            tail.room = rows

    async def stop_stream(self) -> None:
        """Stop taking text (what was written is already drawn: each `write` shows it whole)."""
        self._stream = None
        self._cleaner = None

    def bind(self, message: Message, index: int) -> None:
        """This view now shows message `index` of the dialog (a running tool's block, or a streamed reply)."""
        self.message = message
        self.index = index
        self.call_id = message.tool_call_id or self.call_id

    async def finish(self, message: Message, index: int) -> None:
        """Bind the streamed view to the dialog's message and show its final render: the streamed blocks as
        they are, their code coloured in place when it is ready (in a thread), when they are the message's
        text, else the message rendered in full.

        The room reserved under the streamed text and the "streaming…" line go only after the colours are
        shown: giving the room back moves the whole pane (a full repaint), which held the colours back."""
        await self.stop_stream()
        self.streaming = False
        self.bind(message, index)
        self._set_status_classes()
        markdowns = self.query(LiveMarkdown)
        if markdowns and (message.content or not message.tool_calls):
            markdown = markdowns.first()
            text, hidden, _end = self._shown(message.content)
            in_place = False
            if markdown.live:
                if not hidden and text.startswith(markdown.source) and text != markdown.source:
                    await markdown.stream(text[len(markdown.source) :])  # text not flushed yet: no full render
                await markdown.end_stream()
                in_place = not hidden and markdown.colour_in_place(text, then=self._settle)
            if not in_place:
                self._settle()
                markdown.live = False
                await markdown.update(text)
            await self.query(".calls, FoldNote, .end").remove()
            main = self.query_one(".main", Vertical)
            meta = main.query_one(".meta")
            widgets = [w for w in self._compose_body() if not (w.has_class("body") and not w.has_class("end"))]
            await main.mount_all(widgets, before=meta)
        else:
            await self.recompose_body()
            self._refresh_meta()

    def _settle(self) -> None:
        """The streamed reply at rest: no room reserved for more text, the meta line without "streaming…"."""
        if not self.is_attached or self.streaming:
            return
        for markdown in self.query(LiveMarkdown):
            markdown.release_tail()
            markdown.trim_outer_margins(last=True)  # (a streamed reply's final render posts no new contents)
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
        self.message, self.call_id = message, message.tool_call_id or self.call_id
        await self.recompose_body()

    def on_alternative_switch_clicked(self, event: AlternativeSwitch.Clicked) -> None:
        event.stop()
        self.post_message(self.StepAlternative(self, event.step))

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
        if isinstance(markdown := event.markdown, LiveMarkdown):  # (not its last block while its tail still grows)
            growing = markdown.pending or (markdown.tail is not None and markdown.tail.source)
            markdown.trim_outer_margins(last=not self.streaming and not growing)

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
