"""The views of one dialog's messages, mounted lazily, and the reply that is streaming into them.

Long dialogs stay fast because only the messages of a window (`message_window`) have views: the last `BATCH` when
a dialog opens, the first `BATCH` after Home; scrolling past an edge of the window (or moving the cursor past
it) moves it by a batch, keeping the view where it was, and the views that fall out are removed. The list is
anchored to the bottom while the user has not scrolled up, so a streaming reply stays in
sight without ever yanking the view away from someone reading above.

This is the drawing half of `MessagePane`: it is told what changed (a message added, a stream opened, text to
flush) and keeps the views in step. Which dialog, which run and which keys are the pane's.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from textual.content import Content
from textual.message import Message as TextualMessage

from visindigo.engine import Dialog, Message, Role
from visindigo.tui.chat.message_meta import AlternativeSwitch, Notice
from visindigo.tui.chat.message_window import BATCH, EarlierMarker, LaterMarker, WindowedViews, over_cap_run_continues
from visindigo.tui.chat.view_window import Window
from visindigo.tui.common.sanitize import clean
from visindigo.tui.workbench import RunState

if TYPE_CHECKING:
    from visindigo.tui.chat.message_view import MessageView

__all__ = ["BATCH", "EarlierMarker", "LaterMarker", "MessageList", "Notice"]


def _message_view() -> type[MessageView]:
    """The MessageView class, imported on first use: it brings the Markdown machinery (markdown-it, the code
    highlighter), which an empty dialog does not need, so the first frame comes sooner."""
    from visindigo.tui.chat.message_view import MessageView

    return MessageView


#: How close to an edge (in lines) scrolling must come to move the window.
LOAD_MARGIN = 2
#: Lines of blank room left under a streaming reply before more is reserved (see `_reserve_room`).
ROOM_MARGIN = 3
#: The share of the pane reserved under a reply it follows: each renewal is a layout and a scroll of the pane.
ROOM_SHARE = 2 / 3


class MessageList(WindowedViews):
    """Message views of `dialog`, the streaming reply, and the cursor."""

    class CursorMoved(TextualMessage):
        """The cursor moved: the drawer shows this message's reasoning (None: follow the latest answer)."""

        def __init__(self, pane: MessageList, view: MessageView | None) -> None:
            super().__init__()
            self.pane = pane
            self.view = view
            #: The dialog the pane showed when the cursor moved.
            self.dialog = pane.dialog

        @property
        def control(self) -> MessageList:
            return self.pane

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._stream_view: MessageView | None = None
        self._stream_round = 0
        self._parts_shown = 0
        #: The user scrolled away from the bottom (Textual's anchor stays set but no longer holds).
        self._released = False

    @property
    def following(self) -> bool:
        """Whether the list sticks to its bottom (anchored, and the user has not scrolled away since)."""
        return self.is_anchored and not self._released

    def anchor(self, anchor: bool = True) -> None:
        super().anchor(anchor)
        self._released = False

    def release_anchor(self) -> None:
        super().release_anchor()
        self._released = True

    @property
    def first_mounted(self) -> int:
        """Index of the first message that has a view (earlier ones load on demand)."""
        return self._window.start

    @property
    def window(self) -> Window:
        """The messages that have views."""
        return self._window

    @property
    def views(self) -> list[MessageView]:
        if "visindigo.tui.chat.message_view" not in sys.modules:
            return []
        view_class = _message_view()
        return [child for child in self.children if isinstance(child, view_class)]

    def view_for(self, index: int) -> MessageView | None:
        for view in self.views:
            if view.index == index:
                return view
        return None

    @property
    def cursor(self) -> MessageView | None:
        return self._cursor if self._cursor is not None and self._cursor.parent is self else None

    @property
    def streaming_view(self) -> MessageView | None:
        return self._stream_view

    # --- showing a dialog ----------------------------------------------------------------------------------

    def _make_view(self, index: int) -> MessageView:
        assert self.dialog is not None
        message = self.dialog.message_at(index)
        view = _message_view()(message, index)
        if message.role is Role.TOOL:
            name, arguments = self._call_of(index, message.tool_call_id)
            view.prepare(name=name, arguments=arguments)
        if index in self._alternatives:
            view.prepare(alternatives=self._alternatives[index])
        return view

    def _call_of(self, index: int, call_id: str) -> tuple[str, str]:
        """The name and arguments of the call a tool result answers, from the assistant message before it."""
        assert self.dialog is not None
        for position in range(index - 1, max(-1, index - 64), -1):
            message = self.dialog.message_at(position)
            if message.role is Role.ASSISTANT and message.tool_calls:
                for call in message.parsed_tool_calls():
                    if call.get("id") == call_id:
                        function = call.get("function") or {}
                        return str(function.get("name") or ""), str(function.get("arguments") or "")
                return message.name, ""
        return "", ""

    async def show_dialog(
        self,
        dialog: Dialog,
        *,
        alternatives: dict[int, tuple[int, int]] | None = None,
        run: RunState | None = None,
        focus_index: int | None = None,
    ) -> None:
        """Replace what is shown with `dialog` (its last messages; down to `focus_index` if given)."""
        await self.stop_stream()
        self.dialog = dialog
        self._alternatives = dict(alternatives or {})
        self._cursor = None
        window = Window.at_end(dialog.message_count, around=focus_index)
        await self._mount_window(window, staged="end" if focus_index is None else None)
        with self.app.batch_update():
            if run is not None and run.running and window.reaches_end:
                for call_id, (function_id, arguments) in run.running_tools.items():
                    await self.tool_started(call_id, function_id, arguments)
                if run.streaming:
                    await self.open_stream(run.round)
                    await self.flush(run)
        if focus_index is not None and (view := self.view_for(focus_index)) is not None:
            self.select_view(view, scroll=True)
        else:
            self.follow()

    def follow(self) -> None:
        """Stick to the bottom again (after sending, or when the user asks for the end); the window moves to
        the end of the dialog first when it is elsewhere."""
        if not self._window.reaches_end and self.dialog is not None:
            self.run_worker(self.show_end(), group="show-end", exclusive=True, exit_on_error=False)
            return
        self.anchor()
        self.scroll_end(animate=False, immediate=False)

    def set_alternatives(self, alternatives: dict[int, tuple[int, int]]) -> None:
        self._alternatives = dict(alternatives)
        for view in self.views:
            if view.index is not None:
                position, total = self._alternatives.get(view.index, (0, 0))
                view.set_alternatives(position, total)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._released and new_value >= self.max_scroll_y:  # back at the bottom: Textual anchors again
            self._released = False
        if self._autoload_suspended or self._loading:
            return
        target = self._jump_target(new_value)
        if target is not None:
            self.run_worker(self.jump_to(target), group="jump", exclusive=True, exit_on_error=False)
            return
        top = self._marker.outer_size.height if self._window.start > 0 else 0
        if self._window.start > 0 and new_value <= top + LOAD_MARGIN < old_value:
            self.run_worker(self.load_earlier(), group="load-earlier", exclusive=True, exit_on_error=False)
        bottom = self.max_scroll_y - LOAD_MARGIN
        if not self._window.reaches_end and self._later.display:
            bottom = self._later.virtual_region.y - self.size.height - LOAD_MARGIN
        if not self._window.reaches_end and new_value >= bottom > old_value:
            self.run_worker(self.load_later(), group="load-later", exclusive=True, exit_on_error=False)

    # --- live updates from a run ----------------------------------------------------------------------------

    def _unbound(self) -> MessageView | None:
        """The first view not yet bound to a message (a streaming reply or a running tool)."""
        for view in self.views:
            if view.index is None:
                return view
        return None

    async def message_added(self, index: int) -> None:
        """The dialog gained message `index`: bind the view waiting for it, or mount a new one."""
        if self.dialog is None or index < self._window.start:
            return
        following = self.following
        self._window = self._window.grown(self.dialog.message_count, trim=following)
        if index >= self._window.end:  # the window is away from the end: the marker below counts it
            self._update_markers()
            return
        message = self.dialog.message_at(index)
        if over_cap_run_continues(self.dialog, index):  # one block stands for all the calls over the cap
            return
        if self.view_for(index) is not None:
            return
        stream = self._stream_view
        if message.role is Role.ASSISTANT and stream is not None and stream.index is None:
            self._stream_view = None
            await stream.finish(message, index)
            self._apply_alternatives(stream)
            await self._trim()
            return
        if message.role is Role.TOOL:
            for view in self.views:
                if view.index is None and view.call_id and view.call_id == message.tool_call_id:
                    view.bind(message, index)
                    await view.update_message(message)
                    self._apply_alternatives(view)
                    return
        view = self._make_view(index)
        waiting = self._unbound()
        if waiting is not None:
            await self.mount(view, before=waiting)
        else:
            await self.mount(view, before=await self._end_marker())
        await self._trim()

    def _apply_alternatives(self, view: MessageView) -> None:
        if view.index is not None and view.index in self._alternatives:
            view.set_alternatives(*self._alternatives[view.index])

    async def message_changed(self, index: int) -> None:
        view = self.view_for(index)
        if view is not None and self.dialog is not None:
            await view.update_message(self.dialog.message_at(index))

    async def open_stream(self, round_number: int) -> None:
        """A new answer begins: mount a streaming view at the bottom."""
        await self.stop_stream()
        if not self._window.reaches_end:  # the reader is elsewhere in a long dialog: End shows the stream
            return
        view = _message_view()(Message(Role.ASSISTANT, ""), None, streaming=True)
        await self.mount(view, before=await self._end_marker())
        if not view.start_stream():  # the list is going away (its screen closed as the stream opened)
            return
        self._stream_view = view
        self._stream_round = round_number
        self._parts_shown = 0

    async def flush(self, run: RunState, *, closing: bool = False) -> bool:
        """Show the text that arrived since the last flush; False when there was none. `closing`: the stream
        has just closed (the run no longer says it streams) and this is its last text, shown at once."""
        view = self._stream_view
        if view is None or run.round != self._stream_round or not (run.streaming or closing):
            return False
        parts = run.text.answer
        if len(parts) <= self._parts_shown:
            return False
        fresh = "".join(parts[self._parts_shown :])
        self._parts_shown = len(parts)
        self._reserve_room(view)
        await view.write(fresh)
        return True

    def _reserve_room(self, view: MessageView) -> None:
        """Jump scrolling: keep blank room under a streaming reply, so it grows without scrolling the pane.

        Scrolling moves every line of the pane, so the terminal must redraw all of it (~30 KB at 120×40) for
        each frame; growing into blank room redraws only the lines that changed. The room is the reply's tail's
        (`StreamTail`, the one reservation: the text being written always has it under it, never more): two
        thirds of the pane while the pane follows, so it scrolls in jumps of two thirds of a page, leaving a
        third of context above the text being written (half a page cost a third more layouts and scrolls, the
        larger part of a stream's CPU); a few lines otherwise.
        """
        room = max(ROOM_MARGIN * 2, int(self.size.height * ROOM_SHARE)) if self.following else ROOM_MARGIN * 2
        view.stream_room(room)

    async def restart_stream(self, round_number: int) -> None:
        """What streamed so far was not the answer after all: drop it and stream the round again from empty."""
        view = self._stream_view
        self._stream_view = None
        if view is not None:
            await view.abandon()
        await self.open_stream(round_number)

    async def stream_closed(self, round_number: int) -> None:
        """A round ended; a streaming view that got no message (an empty answer) goes away."""
        view = self._stream_view
        if view is not None and round_number == self._stream_round and view.index is None:
            self._stream_view = None
            await view.abandon()

    async def stop_stream(self) -> None:
        view = self._stream_view
        self._stream_view = None
        if view is not None:
            await view.stop_stream()

    async def tool_started(self, call_id: str, function_id: str, arguments: dict[str, object]) -> None:
        """Mount a running tool block, once: `show_dialog` may already have mounted it from the run's state (the
        dialog was opened between the call starting and this news arriving)."""
        if any(view.index is None and view.call_id == call_id for view in self.views):
            return  # (a finished call of an earlier round may have used the same id: that one has an index)
        view = _message_view()(Message(Role.TOOL, "", tool_call_id=call_id, name=function_id), None)
        view.prepare(name=function_id, arguments=arguments, running=True)
        if self._window.reaches_end:
            await self.mount(view, before=await self._end_marker())

    async def tool_progressed(self, call_id: str, text: str) -> None:
        for view in self.views:
            if view.index is None and view.call_id == call_id:
                await view.set_tool_state(progress=text)
                return

    async def tool_finished(self, call_id: str, result: str, is_error: bool, duration: float) -> None:
        for view in self.views:
            if view.index is None and view.call_id == call_id:  # not a finished call of an earlier round
                await view.set_tool_state(running=False, result=result, is_error=is_error, duration=duration)
                return

    async def resync(self) -> None:
        """After a run: drop views that got no message and mount messages that have no view yet."""
        if self.dialog is None:
            return
        await self.stop_stream()
        for view in self.views:
            if view.index is None:
                await view.remove()
        count = self.dialog.message_count
        bound = [v.index for v in self.views if v.index is not None]
        if any(i >= count for i in bound):
            await self.show_dialog(self.dialog, alternatives=self._alternatives)
            return
        last = max(bound, default=self._window.start - 1)
        for index in range(last + 1, count):
            await self.message_added(index)

    async def show_notice(self, text: str, *, info: bool = False) -> None:
        await self.clear_notice()
        await self.mount(Notice(Content(clean(text)), classes="-info" if info else ""))

    async def clear_notice(self) -> None:
        await self.query(Notice).remove()

    def reveal_alternatives(self, index: int, tries: int = 10) -> None:
        """Bring ◀ n/m ▶ of message `index` on screen: an answer taller than the pane opens at its top, which
        left the marker (at its end) below the fold, so the user could not tell which alternative was shown."""
        view = self.view_for(index)
        switches = view.query(AlternativeSwitch) if view is not None else None
        if not switches:
            return
        switch = switches.first()
        if not switch.region.area:  # not laid out yet (the pane was just filled): after the next refresh
            if tries > 0:
                self.call_after_refresh(self.reveal_alternatives, index, tries - 1)
            return
        if self.region.contains_region(switch.region):
            return
        self.anchor(False)  # the pane stuck to the end of the dialog would scroll straight back
        # the marker on the pane's last line, under the end of the answer it belongs to
        content_y = switch.region.y - self.region.y + self.scroll_y
        self.scroll_to(y=max(0, content_y - self.scrollable_content_region.height + 1), animate=False, immediate=True)

    # --- the cursor ------------------------------------------------------------------------------------------

    def select_view(self, view: MessageView | None, *, scroll: bool = True) -> None:
        previous = self.cursor
        if previous is not None:
            previous.set_cursor(False)
        self._cursor = view
        if view is not None:
            view.set_cursor(True)
            if scroll:
                top = view.outer_size.height > self.size.height
                self._scroll_quietly(lambda: self.scroll_to_widget(view, animate=False, top=top))
        self.post_message(self.CursorMoved(self, view))
