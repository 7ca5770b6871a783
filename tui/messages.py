"""App-wide Textual messages: what the generation worker reports about a dialog's run.

The worker (`tui.generation`) turns engine events into these and posts them to the main screen, which routes
them to the widgets showing that dialog. Every message names its dialog, because a run goes on when the user
opens another dialog, and a widget must ignore what is not about the dialog it shows.

Streamed text is not carried in messages: the worker appends it to the run's `RunState` and posts
`TextArrived` only when the previous one was consumed, so a fast stream costs a few messages per frame
instead of one per token.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


@dataclass
class RunMessage(Message):
    """Base of the run messages; `dialog_id` is the dialog the run belongs to."""

    dialog_id: str


@dataclass
class RunStarted(RunMessage):
    """A run began (the worker is about to ask the provider)."""


@dataclass
class StreamOpened(RunMessage):
    """The model started a new answer (a round); `round` numbers rounds within the run."""

    round: int


@dataclass
class TextArrived(RunMessage):
    """New answer or reasoning text is waiting in the run's `RunState` (coalesced; carries no text)."""


@dataclass
class StreamClosed(RunMessage):
    """A round ended; the message it produced (if any) was announced with `MessageAdded` just before."""

    round: int


@dataclass
class MessageAdded(RunMessage):
    """The dialog gained the message at `index`."""

    index: int


@dataclass
class MessageChanged(RunMessage):
    """The message at `index` was rewritten (for example marked as interrupted)."""

    index: int


@dataclass
class ToolStarted(RunMessage):
    """A tool call is about to run (perhaps waiting for approval)."""

    call_id: str
    function_id: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolProgressed(RunMessage):
    """A running tool reported progress; `text` is the line its block shows."""

    call_id: str
    text: str


@dataclass
class ToolFinished(RunMessage):
    """A tool call finished; `result` is what the model receives."""

    call_id: str
    function_id: str
    result: str
    is_error: bool
    duration: float


@dataclass
class UsageChanged(RunMessage):
    """The run's token counts changed (a usage report or a live estimate)."""


@dataclass
class RunNoted(RunMessage):
    """Something about the run the user should read (another model answered, tools were left out, an empty
    answer, waiting for the provider); `text` is already worded. `waiting` notes go away when the run starts."""

    text: str
    waiting: bool = False


@dataclass
class StreamRestarted(RunMessage):
    """What streamed as this round's answer was reasoning (a headless `</think>`): the live answer starts again
    empty and the drawer shows the moved text."""

    round: int


@dataclass
class RunEnded(RunMessage):
    """The run is over: `outcome` is "finished", "empty" (it ended with an empty answer), "failed" or
    "cancelled"; `error` says why it failed."""

    outcome: str
    error: str = ""


@dataclass
class DialogsChanged(Message):
    """Dialogs were added, removed, renamed or re-linked: the tree should be rebuilt."""

    select_id: str = ""
