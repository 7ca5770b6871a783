"""What the workbench tells its listeners: the runs' progress and changes to the user's working state.

Plain frozen dataclasses (no Textual): a widget that listens wraps each one in a Textual message to itself
(`tui.messages.WorkbenchNews`), so it handles them in order in its own message queue. Every run event names its
dialog, because runs go on while the user reads another dialog, and a widget ignores what is not about the
dialog it shows.

Streamed text is not carried in events: the driver appends it to the run's `RunState` and reports
`TextArrived` only when the previous one was consumed, so a fast stream costs a few events per frame instead of
one per token.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from visindigo.engine import Dialog


@dataclass(frozen=True, slots=True)
class RunEvent:
    """Base of the run events; `dialog_id` is the dialog the run belongs to."""

    dialog_id: str


@dataclass(frozen=True, slots=True)
class RunStarted(RunEvent):
    """A run began (the driver is about to ask the provider)."""


@dataclass(frozen=True, slots=True)
class StreamOpened(RunEvent):
    """The model started a new answer (a round); `round` numbers rounds within the run."""

    round: int


@dataclass(frozen=True, slots=True)
class TextArrived(RunEvent):
    """New answer or reasoning text is waiting in the run's `RunState` (coalesced; carries no text)."""


@dataclass(frozen=True, slots=True)
class StreamClosed(RunEvent):
    """A round ended; the message it produced (if any) was announced with `MessageAdded` just before."""

    round: int


@dataclass(frozen=True, slots=True)
class MessageAdded(RunEvent):
    """The dialog gained the message at `index` (from a run, or sent by the user)."""

    index: int


@dataclass(frozen=True, slots=True)
class MessageChanged(RunEvent):
    """The message at `index` was rewritten (for example marked as interrupted)."""

    index: int


@dataclass(frozen=True, slots=True)
class ToolStarted(RunEvent):
    """A tool call is about to run (perhaps waiting for approval)."""

    call_id: str
    function_id: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolProgressed(RunEvent):
    """A running tool reported progress; `text` is the line its block shows."""

    call_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolFinished(RunEvent):
    """A tool call finished; `result` is what the model receives."""

    call_id: str
    function_id: str
    result: str
    is_error: bool
    duration: float


@dataclass(frozen=True, slots=True)
class UsageChanged(RunEvent):
    """The run's token counts changed."""


@dataclass(frozen=True, slots=True)
class RunNoted(RunEvent):
    """Something about the run the user should read (another model answered, tools were left out, an empty
    answer, waiting for the provider); `text` is already worded. `waiting` notes go away when the run starts."""

    text: str
    waiting: bool = False


@dataclass(frozen=True, slots=True)
class StreamRestarted(RunEvent):
    """What streamed as this round's answer was reasoning (a headless `</think>`): the live answer starts again
    empty and the drawer shows the moved text."""

    round: int


@dataclass(frozen=True, slots=True)
class RunEnded(RunEvent):
    """The run is over: `outcome` is "finished", "empty" (it ended with an empty answer), "failed" or
    "cancelled"; `error` says why it failed."""

    outcome: str
    error: str = ""


@dataclass(frozen=True, slots=True)
class Sent(RunEvent):
    """The user sent something to the dialog (its messages were announced with `MessageAdded` just before):
    a pane showing it goes back to the bottom and drops the last run's notice."""


@dataclass(frozen=True, slots=True)
class ShownChanged:
    """The dialog on the main screen changed from `previous` to `dialog`."""

    dialog: Dialog
    previous: Dialog | None


@dataclass(frozen=True, slots=True)
class TreeChanged:
    """Dialogs were added, removed, renamed or re-linked: the tree index was rebuilt (`select_id`: put the
    tree's cursor there)."""

    select_id: str = ""


@dataclass(frozen=True, slots=True)
class DialogChanged:
    """Something shown about the dialog changed outside a run (its model or provider)."""

    dialog_id: str


@dataclass(frozen=True, slots=True)
class AttachmentsChanged:
    """The files or MCP resources waiting to go with the dialog's next message changed (the chips redraw)."""

    dialog_id: str


WorkbenchEvent = RunEvent | ShownChanged | TreeChanged | DialogChanged | AttachmentsChanged
