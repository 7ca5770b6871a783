"""Keeping one dialog's rows in step with the dialog, by listening to its events.

Every event becomes the smallest write that records it: an appended message one insert, a truncation one
delete, a configuration change one row update. A reply that is streaming is checkpointed into the `drafts`
table when its first text arrives and then at most once a `checkpoint_interval` — and at least that often
while text keeps arriving, a timer catching the text that arrives between checkpoints — so a crash loses at
most about a second of it. When a write fails the dialog is marked dirty and rewritten whole at the next
event, so a full disk that frees up again leaves no hole in the history.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from ..message import Role
from ..record import record
from .errors import StoreError
from .rows import make_title

if TYPE_CHECKING:
    from ..dialog import Dialog
    from ..events import Event
    from ..message import Message

log = logging.getLogger(__name__)

#: Seconds between checkpoints of a streaming reply: the most text a crash can lose.
CHECKPOINT_INTERVAL = 1.0


@record
class _Stream:
    """The reply being received: where it will go and how much of it is on disk."""

    position: int
    started_at: float
    last_write: float = float("-inf")
    written: bool = False
    pending: bool = False
    cancel_timer: Callable[[], object] | None = None


class DialogWrites(Protocol):
    """The writes a tracker makes (the `Store` makes them; named here so the tracker need not import it)."""

    def report_error(self, message: str) -> None: ...

    def save_dialog(self, dialog: Dialog) -> None: ...

    def save_dialog_config(self, dialog: Dialog) -> None: ...

    def append_message(self, dialog_id: str, position: int, message: Message, *, drop_draft: bool = False) -> None: ...

    def update_message(self, dialog_id: str, position: int, message: Message) -> None: ...

    def truncate(self, dialog_id: str, count: int, *, drop_draft: bool = False) -> None: ...

    def write_draft(self, dialog_id: str, position: int, content: str, reasoning: str, started_at: float) -> None: ...

    def delete_draft(self, dialog_id: str) -> None: ...


class DialogTracker:
    """Subscribes to a dialog and writes each change to the store; `detach()` stops it."""

    checkpoint_interval: float = CHECKPOINT_INTERVAL
    #: The clock and the timer of the checkpoints; a test puts a manual clock here instead of sleeping.
    clock: Callable[[], float] = staticmethod(time.monotonic)
    schedule: Callable[[float, Callable[[], None]], Callable[[], object]] = staticmethod(
        lambda delay, callback: _call_later(delay, callback)
    )

    def __init__(self, store: DialogWrites, dialog: Dialog) -> None:
        self.store = store
        self.dialog = dialog
        self._stored_count = dialog.message_count
        self._dirty = False
        self._stream: _Stream | None = None
        self._mutex = threading.RLock()
        self._unsubscribe = dialog.subscribe(self._on_event)

    def detach(self, *, flush: bool) -> None:
        """Stop listening; `flush` first writes the text a streaming reply received since its last checkpoint."""
        with self._mutex:
            if flush and self._stream is not None and self._stream.pending:
                self._guarded(self._checkpoint)
            self._end_stream()
            self._unsubscribe()

    def mark_dirty(self) -> None:
        """A write was not made (the store is being repaired): the next change writes the dialog whole."""
        with self._mutex:
            self._dirty = True

    def dialog_rewritten(self) -> None:
        """Write the dialog whole from memory, which is the newest state: when tracking starts, and after the
        store was rebuilt from a damaged file. A failing write is reported and tried again with the next change."""
        with self._mutex:
            self._dirty = True
            self._guarded(self._save_all)

    # --- events -------------------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        with self._mutex:
            self._guarded(lambda: self._handle(event))

    def _guarded(self, write: Callable[[], None]) -> None:
        try:
            write()
        except (sqlite3.Error, StoreError, OSError) as exc:
            self._dirty = True
            title = self.dialog.title or self.dialog.id
            self.store.report_error(
                f"Could not save dialog {title!r}: {exc}. Nothing is lost while Visindigo runs; it saves the "
                "whole dialog again with its next change."
            )

    def _handle(self, event: Event) -> None:
        # Imported here, not with the module: the store opens before the first frame, the events load with the
        # first one a dialog emits (`dialog`), and are in `sys.modules` by the time one arrives here.
        from ..events import (
            DialogChanged,
            MessageAppended,
            MessagesTruncated,
            MessageUpdated,
            StreamBegan,
            StreamDelta,
            StreamEnded,
            StreamReasoning,
        )

        if isinstance(event, StreamDelta | StreamReasoning):
            self._text_arrived()
            return
        if isinstance(event, StreamBegan):
            self._end_stream()
            self._stream = _Stream(position=self.dialog.message_count, started_at=time.time())
            return
        if isinstance(event, StreamEnded):
            if self._stream is not None and self._stream.written:
                self.store.delete_draft(self.dialog.id)
            self._end_stream()
            return
        if self._dirty:
            self._save_all()
            return
        if isinstance(event, MessageAppended):
            self._appended(event.index)
        elif isinstance(event, MessageUpdated):
            if event.index < self._stored_count:
                self.store.update_message(self.dialog.id, event.index, self.dialog.message_at(event.index))
            else:
                self._save_all()
        elif isinstance(event, MessagesTruncated):
            self.store.truncate(self.dialog.id, event.count, drop_draft=self._draft_written())
            self._stored_count = min(self._stored_count, event.count)
            self._end_stream()
        elif isinstance(event, DialogChanged):
            if event.what == "loaded":
                self._save_all()
            else:
                self.store.save_dialog_config(self.dialog)

    def _appended(self, index: int) -> None:
        message = self.dialog.message_at(index)
        # A message appended while a reply streams is that reply (or the round is over): its draft goes in the
        # same transaction, so a crash never leaves both.
        drop_draft = self._draft_written()
        if index != self._stored_count:
            self._save_all()
        else:
            self.store.append_message(self.dialog.id, index, message, drop_draft=drop_draft)
            self._stored_count = index + 1
        if drop_draft:
            self._end_stream()
        if not self.dialog.title and message.role in (Role.USER, Role.PROMPT):
            title = make_title(message.content)
            if title:
                self.dialog.title = title  # emits DialogChanged, which writes the row

    def _save_all(self) -> None:
        self.store.save_dialog(self.dialog)
        if self._draft_written():
            self.store.delete_draft(self.dialog.id)
            self._end_stream()
        self._stored_count = self.dialog.message_count
        self._dirty = False

    # --- stream checkpoints -------------------------------------------------------------------------------

    def _draft_written(self) -> bool:
        return self._stream is not None and self._stream.written

    def _text_arrived(self) -> None:
        stream = self._stream
        if stream is None:  # deltas without StreamBegan: treat the first one as the beginning
            stream = self._stream = _Stream(position=self.dialog.message_count, started_at=time.time())
        stream.pending = True
        now = self.clock()
        due = stream.last_write + self.checkpoint_interval
        if now >= due:
            self._checkpoint()
        elif stream.cancel_timer is None:
            stream.cancel_timer = self.schedule(due - now, self._timer_fired)

    def _timer_fired(self) -> None:
        with self._mutex:
            stream = self._stream
            if stream is None:
                return
            stream.cancel_timer = None
            if stream.pending:
                self._guarded(self._checkpoint)

    def _checkpoint(self) -> None:
        stream = self._stream
        if stream is None:
            return
        self.store.write_draft(
            self.dialog.id,
            stream.position,
            self.dialog.streaming_content,
            self.dialog.reasoning_content,
            stream.started_at,
        )
        stream.written = True
        stream.pending = False
        stream.last_write = self.clock()

    def _end_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None and stream.cancel_timer is not None:
            stream.cancel_timer()


def _call_later(delay: float, callback: Callable[[], None]) -> Callable[[], object]:
    """Run `callback` after `delay` on the running event loop, or on a timer thread when there is none."""
    if "asyncio" not in sys.modules:  # not imported yet (`visindigo ask` before its question leaves): no loop runs
        return _timer(delay, callback)
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _timer(delay, callback)
    return loop.call_later(delay, callback).cancel


def _timer(delay: float, callback: Callable[[], None]) -> Callable[[], object]:
    timer = threading.Timer(delay, callback)
    timer.daemon = True
    timer.start()
    return timer.cancel
