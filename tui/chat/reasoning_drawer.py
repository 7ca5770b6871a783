"""The reasoning drawer: the thinking behind the message under the cursor, live while it streams.

Reasoning is plain text to us (models write loose Markdown in it, but it is a scratchpad, not an answer), so
it is shown as `Content` after cleaning; streaming appends to a list and re-renders at the screen's frame
rate, never per token. A reasoning longer than `FOLD_LIMIT` is folded as a long message is: its beginning and
a line saying how much more there is (while it streams only the count changes, so a 5 MB reasoning is never
wrapped whole on every frame); alt+g (`toggle_fold`) shows all of it in parts, as `LongText` does for messages.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Static

from visindigo.engine import Dialog, Role
from visindigo.tui.chat.markdown.long_text import FOLD_LIMIT, LongText, fold
from visindigo.tui.chat.message_pane import MessagePane
from visindigo.tui.common.sanitize import StreamCleaner, clean
from visindigo.tui.workbench import RunState

#: The key that unfolds a folded reasoning (MainScreen's "reasoning-all" binding; said in the fold line).
UNFOLD_KEY = "alt+g"


def reasoning_fold_note(hidden: int, *, receiving: bool = False) -> str:
    if receiving:
        return f"… {hidden:,} more characters arriving (folded; {UNFOLD_KEY} shows all once it is complete)"
    return f"… {hidden:,} more characters folded · {UNFOLD_KEY} shows all"


def drawer_title(index: int) -> str:
    """The drawer's one-line title for message `index` (the model is in the status line: no room for it)."""
    return f"reasoning · message {index + 1}"


class ReasoningDrawer(Vertical):
    """Shows one message's reasoning; `follow_stream` makes it track the answer being generated.

    Its parts (the title, the scrolled text) are mounted just after the screen's first frame, or when it first
    has more than "no reasoning" to show: until then the drawer draws its title and that line itself, styled
    as the parts would be (its component classes are the parts' classes, so the same rules style both), and
    the first frame lays out and styles one widget instead of four.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"title", "empty"}

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
    ReasoningDrawer .fold {
        color: $text-muted;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title = Static(Content("reasoning"), classes="title")
        self._text = Static(Content(""), classes="text")
        self._note = Static(Content(""), classes="fold")
        self._note.display = False  # (mounted when a long reasoning first folds: not on the way to the first frame)
        self._scroll = VerticalScroll(self._text, can_focus=False)
        self._parts: list[str] = []
        #: Characters in `_parts`, and their first FOLD_LIMIT (what a folded reasoning shows).
        self._length = 0
        self._beginning = ""
        self._shown_text = ""
        #: All of a folded reasoning, when the user asked for it (None: folded).
        self._all: LongText | None = None
        self._cleaner: StreamCleaner | None = None
        self._round = -1
        self._shown = 0
        #: What the drawer shows: "stream" (the answer being generated) or "message" (the cursor's).
        self.source = "message"
        #: Whether the title and the scroll are mounted (until then `render` draws the empty state).
        self._parts_mounted = False

    def compose(self) -> ComposeResult:
        return iter(())  # the parts are mounted after the first frame: see `_mount_parts`

    def render(self) -> RenderResult:
        """The title and "no reasoning" line as the parts show them, while the parts are not mounted."""
        if self._parts_mounted:
            return super().render()
        title = Content(self.title).stylize(self.get_visual_style("title"))
        return Content("\n").join([title, Content(self._shown_text).stylize(self.get_visual_style("empty"))])

    def render_line(self, y: int) -> Strip:
        """Below the two lines it draws itself, the drawer is blank as the empty scroll is (no text colour)."""
        if self._parts_mounted or y < 2:
            return super().render_line(y)
        return Strip.blank(self.size.width, Style(bgcolor=self.visual_style.rich_style.bgcolor))

    def _mount_parts(self) -> None:
        """Mount the title and the scroll (once): just after the first frame, or when first needed before it
        (a drawer not in the DOM yet mounts them in `on_mount`)."""
        if not self._parts_mounted and self.is_attached:
            self._parts_mounted = True
            self.mount_all([self._title, self._scroll])

    def on_mount(self) -> None:
        if self._parts or self.source == "stream":
            self._mount_parts()
        else:
            self.call_after_refresh(self._mount_parts)

        # The text may be laid out after the refresh `_render_text` waited for (a loaded machine, a frame drawn
        # at once): its new height is the moment to anchor, whenever it comes.
        def grown(_size: object) -> None:
            self.call_later(self._follow_stream)

        self.watch(self._scroll, "virtual_size", grown, init=False)

    @property
    def title(self) -> str:
        """The drawer's title line as shown ("reasoning · message 4", "reasoning · live")."""
        return str(self._title.content)

    @property
    def text(self) -> str:
        """What the drawer shows now (without the placeholder)."""
        return "".join(self._parts)

    @property
    def folded(self) -> bool:
        """Whether the drawer shows only the beginning of a long reasoning."""
        return self._length > FOLD_LIMIT and self._all is None

    def _set_parts(self, parts: list[str]) -> None:
        self._parts = parts
        self._length = sum(map(len, parts))
        self._beginning = "".join(parts)[: FOLD_LIMIT + 1] if self._length > FOLD_LIMIT else ""
        self._drop_all()

    def _add_part(self, part: str) -> None:
        self._parts.append(part)
        self._length += len(part)
        if len(self._beginning) <= FOLD_LIMIT and self._length > FOLD_LIMIT:
            self._beginning = "".join(self._parts)[: FOLD_LIMIT + 1]

    def _drop_all(self) -> None:
        if self._all is not None:
            self._all.remove()
            self._all = None
            self._text.display = True

    async def toggle_fold(self) -> bool:
        """Show all of a folded reasoning (mounted in parts, the app answering keys in between), or fold it
        again; False when there is nothing to unfold (a short one, or one still streaming)."""
        if self._length <= FOLD_LIMIT or self.source == "stream":
            return False
        if self._all is not None:
            self._drop_all()
            self._render_text()
            return True
        self._mount_parts()
        self._all = LongText(self.text, classes="text")
        self._text.display = False
        self._note.display = False
        await self._scroll.mount(self._all)
        return True

    def show(self, reasoning: str, title: str = "reasoning") -> None:
        """Show a finished message's reasoning."""
        self.source = "message"
        self._cleaner = None
        self._set_parts([clean(reasoning)] if reasoning else [])
        if self._parts:
            self._mount_parts()
        self._scroll.anchor(False)
        self._title.update(Content(title))
        self._render_text()
        if self._parts_mounted:
            self._scroll.scroll_home(animate=False, immediate=True)
        else:
            self.refresh()

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
                self.feed(run.round, run.text.reasoning)
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
        self.feed(run.round, run.text.reasoning)

    def start_stream(self, round_number: int, title: str = "reasoning · live") -> None:
        self._mount_parts()
        self.source = "stream"
        self._round = round_number
        self._shown = 0
        self._set_parts([])
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
            self._add_part(fresh)
            self._render_text()
        return bool(fresh)

    def _render_text(self) -> None:
        if self._all is not None:
            return
        if self._length > FOLD_LIMIT:
            head, _ = fold(self._beginning)
            self._update_text(head, "text")
            self._note.update(Content(reasoning_fold_note(self._length - len(head), receiving=self.source == "stream")))
            self._note.display = True
            if self._note.parent is None:
                self._scroll.mount(self._note, after=self._text)
        elif self._parts:
            self._update_text("".join(self._parts), "text")
            self._note.display = False
        else:  # live: nothing yet (it may come); a finished message: there is none
            empty = "No reasoning yet." if self.source == "stream" else "No reasoning for this message."
            self._update_text(empty, "empty")
            self._note.display = False
        if self.source == "stream":
            self.call_after_refresh(self._follow_stream)

    def _update_text(self, text: str, kind: str) -> None:
        """Show `text`; a folded one streaming on keeps the same beginning, which is not laid out again."""
        if text != self._shown_text or not self._text.has_class(kind):
            self._text.update(Content(text))
            self._text.set_classes(kind)
            self._shown_text = text

    def _follow_stream(self) -> None:
        """Keep live reasoning in view once it is longer than the drawer, and read from the top until then.

        Textual's anchor sits short content at the bottom of the view (right for a chat, odd for notes), so
        the drawer anchors only when the text overflows.
        """
        if self.source != "stream" or self._scroll.is_anchored:
            return
        view = self._scroll.scrollable_content_region.height
        if max(self._text.outer_size.height, self._scroll.virtual_size.height) > view:
            self._scroll.anchor()
