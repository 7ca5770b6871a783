"""The window of a message list: which messages have views, and moving it (issue 14 §1).

Only the messages of a `Window` (`view_window`) have views; the rest are text in the dialog, counted by a
marker above and one below. Home and End put the window at either end of the dialog at once; scrolling past
an edge (or moving the cursor past it) moves it by a batch, keeping the view on what the user was reading;
the views that fall out are removed, so memory and each frame's layout stay bounded however long the dialog
or the session. This is the part of `MessageList` that mounts and removes views for the window.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from visindigo.tui.chat.view_window import STEP, Window, estimated_rows

if TYPE_CHECKING:
    from visindigo.engine import Dialog
    from visindigo.tui.chat.message_view import MessageView

#: Messages mounted when a dialog opens, and per step when scrolling past an edge of the window.
BATCH = STEP


def over_cap_run_continues(dialog: Dialog, index: int) -> bool:
    """Whether message `index` is a "not run: over the cap" result following another one (see run_loop)."""
    return (
        index > 0
        and bool(dialog.message_at(index).meta.get("over_cap"))
        and bool(dialog.message_at(index - 1).meta.get("over_cap"))
    )


class EarlierMarker(Static):
    """The space of the messages above the window (their estimated height, so the scrollbar spans the whole
    dialog), with a line at its foot saying how many there are."""

    DEFAULT_CSS = """
    EarlierMarker {
        color: $text-muted;
        text-align: center;
        content-align: center bottom;
        width: 1fr;
    }
    """

    def set_rows(self, rows: int) -> None:
        """Stand for `rows` rows of messages (one at least: the line saying how many)."""
        self.styles.height = max(1, rows)

    def set_count(self, count: int) -> None:
        self.display = count > 0
        noun = "message" if count == 1 else "messages"
        self.update(Content(f"↑ {count:,} earlier {noun}: scroll up to show them, Home for the first"))


class LaterMarker(EarlierMarker):
    """The space of the messages below the window, with a line at its top saying how many there are."""

    DEFAULT_CSS = """
    LaterMarker {
        content-align: center top;
    }
    """

    def set_count(self, count: int) -> None:
        self.display = count > 0
        noun = "message" if count == 1 else "messages"
        self.update(Content(f"↓ {count:,} later {noun}: scroll down or press End to show them"))


class WindowedViews(VerticalScroll):
    """A scrolling list of message views of which only a window is mounted: it owns the window, the markers
    standing for the messages outside it and their measured rows, and moves the window; `MessageList` makes
    the views and adds the streaming reply and the cursor."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.dialog: Dialog | None = None
        self._window = Window(0, 0, 0)
        self._alternatives: dict[int, tuple[int, int]] = {}
        self._cursor: MessageView | None = None
        self._loading = False
        #: Views of the window still to mount after the first paint: (generation, indexes, above the others).
        self._pending: tuple[int, list[int], bool] | None = None
        self._generation = 0
        #: Rows of each message at `_rows_width` (measured, or estimated) for the space of those outside the window.
        self._rows: dict[int, int] = {}
        self._rows_width = 0
        self._autoload_suspended = 0
        self._marker = EarlierMarker(Content(""))
        self._later = LaterMarker(Content(""))

    # --- what the list provides -------------------------------------------------------------------------------

    @property
    def views(self) -> list[MessageView]:
        """The mounted message views, in order."""
        raise NotImplementedError

    def _make_view(self, index: int) -> MessageView:
        """A new view of message `index` of the dialog."""
        raise NotImplementedError

    async def stop_stream(self) -> None:
        """End the live reply's stream (its view stops growing)."""
        raise NotImplementedError

    async def show_dialog(self, dialog: Dialog, *, alternatives: dict[int, tuple[int, int]] | None = None) -> None:
        """Show `dialog`'s last messages."""
        raise NotImplementedError

    # --- scrolling without loading --------------------------------------------------------------------------

    def _suspend_autoload(self) -> None:
        self._autoload_suspended += 1

    def _resume_autoload(self) -> None:
        self._autoload_suspended = max(0, self._autoload_suspended - 1)

    def _scroll_quietly(self, scroll: Callable[[], object]) -> None:
        """Scroll without that counting as the user reaching the top (which loads earlier messages)."""
        self._suspend_autoload()
        scroll()
        self.call_after_refresh(self._resume_autoload)

    async def _mount_window(self, window: Window, *, staged: str | None = None) -> None:
        """Replace every view with those of `window`, between the earlier and later markers.

        With `staged` ("end" or "start") only the messages that fill the pane at that end are mounted now, and
        the rest of the window right after the first paint (`_mount_rest`): opening a 2,000-message dialog
        used to mount a whole window of Markdown views before anything showed.
        """
        assert self.dialog is not None
        dialog = self.dialog
        self._window = window
        self._generation += 1
        self._pending = None
        indexes = [i for i in range(window.start, window.end) if not over_cap_run_continues(dialog, i)]
        now, rest = indexes, list[int]()
        if staged is not None:
            share = self._first_paint_share(indexes, from_end=staged == "end")
            now, rest = (indexes[-share:], indexes[:-share]) if staged == "end" else (indexes[:share], indexes[share:])
        with self.app.batch_update():
            await self.remove_children()
            self._marker = EarlierMarker(Content(""))
            self._later = LaterMarker(Content(""))
            self._update_markers()
            if indexes or window.earlier or window.later:
                await self.mount_all([self._marker, *(self._make_view(i) for i in now), self._later])
                self._markers_idle()
            # else an empty dialog: both markers are hidden, and the first view mounted brings them (`_end_marker`)
        if rest:
            self._pending = (self._generation, rest, staged == "end")
            self.run_worker(self._mount_rest(self._generation), group="window-rest", exit_on_error=False)

    def _first_paint_share(self, indexes: list[int], *, from_end: bool) -> int:
        """How many messages from one end of `indexes` fill the pane (estimated from their length), plus one."""
        assert self.dialog is not None
        width = self.size.width or self.app.size.width
        height = self.size.height or self.app.size.height
        rows = 0
        for count, index in enumerate(reversed(indexes) if from_end else indexes, 1):
            rows += estimated_rows(self.dialog.message_at(index).content, width)
            if rows > height:
                return min(len(indexes), count + 1)
        return len(indexes)

    async def _mount_rest(self, generation: int) -> None:
        """After the first paint of the views mounted now (their Markdown laid out and drawn), the rest of the
        window, unless another window replaced it meanwhile; mounting it sooner delays that paint."""
        for _ in range(20):  # a few refreshes at most: a view that never lays out does not hold the rest back
            await self._next_refresh()
            if self._generation != generation:
                return
            if all(view.outer_size.height and view.children for view in self.views):
                break
        await self._next_refresh()
        if self._generation == generation:
            await self._complete_window()

    async def _next_refresh(self) -> None:
        painted = asyncio.Event()
        self.call_after_refresh(painted.set)
        await painted.wait()

    async def _complete_window(self) -> None:
        """Mount the views still pending from a staged `_mount_window`, now (before the window moves)."""
        pending, self._pending = self._pending, None
        if pending is None or pending[0] != self._generation or self.dialog is None:
            return
        _generation, rest, above = pending
        views = [self._make_view(i) for i in rest]
        first = self.views[0] if self.views else None
        with self.app.batch_update():
            if above and first is not None:
                await self.mount_all(views, before=first)
            else:
                await self.mount_all(views, before=await self._end_marker())

    # --- the space of the messages outside the window ---------------------------------------------------------

    async def _end_marker(self) -> LaterMarker:
        """The later marker, to mount a view at the end of the window before: an empty dialog's window is shown
        without its markers (both hidden; two widgets fewer in the first frame), so they are mounted first, where
        they would have been."""
        if self._later.parent is None:
            first = self.children[0] if self.children else None
            await self.mount_all([self._marker, self._later], before=first)
            self._markers_idle()
        return self._later

    def _markers_idle(self) -> None:
        """Deliver the markers' text, set before they were mounted, so their layout joins this one."""
        for marker in (self._marker, self._later):
            marker.check_idle()

    def _message_rows(self, index: int) -> int:
        """Rows message `index` takes at the pane's width: measured when it last had a view, else estimated."""
        assert self.dialog is not None
        width = self.size.width or self.app.size.width
        if width != self._rows_width:  # measured at another width: estimate again
            self._rows.clear()
            self._rows_width = width
        rows = self._rows.get(index)
        if rows is None:
            rows = self._rows[index] = estimated_rows(self.dialog.message_at(index).content, width)
        return rows

    def _update_markers(self) -> None:
        """Markers (and their space) for the messages before and after the window."""
        window = self._window
        self._marker.set_count(window.earlier)
        self._marker.set_rows(sum(self._message_rows(i) for i in range(window.start)))
        self._later.set_count(window.later)
        self._later.set_rows(sum(self._message_rows(i) for i in range(window.end, window.count)))

    def _message_at_row(self, row: int, first: int, last: int) -> int:
        """The message of messages `first` ≤ i < `last` at `row` rows below the top of `first`."""
        for index in range(first, last):
            row -= self._message_rows(index)
            if row < 0:
                return index
        return max(first, last - 1)

    def _jump_target(self, scroll_y: float) -> int | None:
        """The message at the top of the pane when the pane shows only the space of messages outside the window
        (the scrollbar was dragged, or PageUp/PageDown went past the window), else None."""
        if self.dialog is None or self._loading:
            return None
        window = self._window
        top = int(scroll_y)
        if window.start > 0 and top + self.size.height <= self._marker.outer_size.height:
            return self._message_at_row(top, 0, window.start)
        later_top = self._later.virtual_region.y
        if not window.reaches_end and self._later.display and top >= later_top:
            return self._message_at_row(top - later_top, window.end, window.count)
        return None

    async def jump_to(self, index: int) -> None:
        """Move the window to message `index` and put it at the top of the pane (a drag to the middle of a long
        dialog shows the messages there in one step)."""
        if self.dialog is None:
            return
        self._suspend_autoload()
        try:
            await self._mount_window(Window.at_end(self.dialog.message_count, around=index))
            if self._window.reaches_end:
                self.anchor(False)
            view = next((v for v in self.views if v.index is not None and v.index >= index), None)

            def settle() -> None:
                if view is not None and view.parent is self:
                    self.scroll_to_widget(view, animate=False, top=True, immediate=True)
                self.call_after_refresh(self._resume_autoload)

            self.call_after_refresh(settle)
        except Exception:
            self._resume_autoload()
            raise

    async def show_start(self) -> None:
        """The first messages of the dialog, in one step however long it is (Home)."""
        if self.dialog is None:
            return
        await self.stop_stream()
        self._cursor = None
        self.release_anchor()
        await self._mount_window(Window.at_start(self.dialog.message_count), staged="start")
        self._scroll_quietly(lambda: self.scroll_home(animate=False, immediate=True))

    async def show_end(self) -> None:
        """Show the dialog's last messages (and its live reply) again; the pane adds the run."""
        if self.dialog is not None:
            await self.show_dialog(self.dialog, alternatives=self._alternatives)

    async def load_earlier(self, count: int = BATCH, *, keep_position: bool = True) -> int:
        """Move the window `count` messages back: mount their views above the first one and remove the views
        that fall out at the bottom; returns how many were mounted.

        With `keep_position` the view stays on what the user was reading (the new messages appear above it).
        """
        if self.dialog is None or self._window.start <= 0 or self._loading:
            return 0
        self._loading = True
        try:
            await self._complete_window()
            old, new = self._window, self._window.step_back(count)
            views = [self._make_view(i) for i in range(new.start, old.start)]
            before_scroll = self.scroll_y
            first = self.views[0] if self.views else None
            before_y = first.virtual_region.y if first is not None else 0
            self._suspend_autoload()
            with self.app.batch_update():
                if first is not None:
                    await self.mount_all(views, before=first)
                else:
                    await self.mount_all(views, after=self._marker)
                await self._remove_outside(new)
            self._window = new
            self._update_markers()

            def settle() -> None:
                # the view that was first moved down by the new views less the space they stood in
                if keep_position and first is not None and first.parent is self:
                    grown = first.virtual_region.y - before_y
                    self.scroll_to(y=before_scroll + grown, animate=False, immediate=True)
                self._resume_autoload()

            self.call_after_refresh(settle)
            return len(views)
        finally:
            self._loading = False

    async def load_later(self, count: int = BATCH) -> int:
        """Move the window `count` messages on: mount their views below the last one and remove the views that
        fall out at the top, keeping the view on what the user was reading; returns how many were mounted."""
        if self.dialog is None or self._window.reaches_end or self._loading:
            return 0
        self._loading = True
        try:
            await self._complete_window()
            old, new = self._window, self._window.step_forward(count)
            views = [self._make_view(i) for i in range(old.end, new.end) if not over_cap_run_continues(self.dialog, i)]
            staying = next((v for v in self.views if v.index is not None and v.index >= new.start), None)
            before_y = staying.virtual_region.y if staying is not None else 0
            self._suspend_autoload()
            with self.app.batch_update():
                await self.mount_all(views, before=await self._end_marker())
                await self._remove_outside(new)
            self._window = new
            self._update_markers()
            before_scroll = self.scroll_y

            def settle() -> None:
                # the views that left at the top are replaced by their space: keep the reader's view still
                if staying is not None and staying.parent is self:
                    moved = staying.virtual_region.y - before_y
                    self.scroll_to(y=max(0, before_scroll + moved), animate=False, immediate=True)
                self._resume_autoload()

            self.call_after_refresh(settle)
            return len(views)
        finally:
            self._loading = False

    async def _remove_outside(self, window: Window) -> None:
        """Remove the views of messages outside `window` (views not yet bound to a message stay)."""
        leaving = [v for v in self.views if v.index is not None and not window.start <= v.index < window.end]
        for view in leaving:  # what it measured stands for it in the space of the messages outside
            if view.index is not None and view.outer_size.height:
                self._rows[view.index] = view.outer_size.height + view.styles.margin.bottom
        if self._cursor in leaving:
            self._cursor = None
        if leaving:
            await self.remove_children(leaving)

    async def _trim(self) -> None:
        """Views that fell out of the window at the top (while following) go, with the marker updated."""
        await self._remove_outside(self._window)
        self._update_markers()
