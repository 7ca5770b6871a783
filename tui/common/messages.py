"""Textual messages that carry the workbench's news, and the app-wide ones.

A widget that follows the workbench subscribes with `listen(widget, workbench)`: each workbench event reaches it
as a `WorkbenchNews` in its own message queue, so it handles them in order, one at a time, like any other message.
The news does not bubble: each listener gets its own copy.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message
from textual.message_pump import MessagePump

from visindigo.tui.workbench import Workbench
from visindigo.tui.workbench.events import TextArrived, WorkbenchEvent


class WorkbenchNews(Message, bubble=False):
    """One workbench event for the widget it was posted to."""

    def __init__(self, event: WorkbenchEvent) -> None:
        super().__init__()
        self.event = event


def listen(
    target: MessagePump,
    workbench: Workbench,
    *only: type[WorkbenchEvent],
    drawing: Callable[[], bool] = lambda: False,
) -> Callable[[], None]:
    """Post the workbench's events (`only` these kinds, when given) to `target` from now on; returns the function
    that stops it. Naming the kinds keeps a stream's frequent news (`TextArrived`) away from widgets that ignore
    it.

    `TextArrived` comes with every delta of a stream, and is news only to a target that is not drawing already:
    none is posted while `drawing()` says the target's frames run (they draw whatever the run holds), and one
    at a time per dialog otherwise — while one waits in the target's queue the next ones are dropped. The
    target's side alone keeps that account; nothing the producer reads."""
    waiting: set[str] = set()  # dialogs whose TextArrived is in the target's queue, not handled yet

    def handled(dialog_id: str) -> None:
        waiting.discard(dialog_id)

    def post(event: WorkbenchEvent) -> None:
        if only and not isinstance(event, only):
            return
        if isinstance(event, TextArrived):
            if event.dialog_id in waiting or drawing():
                return
            if target.post_message(WorkbenchNews(event)):
                waiting.add(event.dialog_id)
                target.call_later(handled, event.dialog_id)  # runs right after the news, in the same queue
            return
        target.post_message(WorkbenchNews(event))

    return workbench.subscribe(post)


class DialogsChanged(Message):
    """Dialogs were added, removed, renamed or re-linked: the tree should be rebuilt."""

    def __init__(self, select_id: str = "") -> None:
        super().__init__()
        self.select_id = select_id
