"""What the workbench tells its listeners: the engine's events of each dialog, forwarded, and the little the UI adds.

One vocabulary: an engine event (`visindigo.engine.events`) reaches a listener as itself, wrapped in
`EngineEvent` with what the UI adds to it — the dialog it is about (runs go on while the user reads another
dialog, and a widget ignores what is not about the dialog it shows) and the round of the run it came in. The
workbench's own events are only what the engine has no word for: a run starting and ending as a whole
(`RunStarted`, `RunEnded` with its outcome), the user sending (`Sent`), text waiting to be drawn
(`TextArrived`), and the user's working state (`ShownChanged`, `TreeChanged`, `AttachmentsChanged`).

Plain frozen dataclasses (no Textual): a widget that listens wraps each one in a Textual message to itself
(`tui.common.messages.WorkbenchNews`), so it handles them in order in its own message queue. A run event with no
field of its own (`RunStarted`, `TextArrived`, `Sent`) is a plain subclass of `RunEvent` with empty slots: it
uses the base's generated methods, which name the subclass (`RunStarted(dialog_id='d1')`, equal only to a
`RunStarted`); the decorator would compile the same six again for each, on the way to the first frame.

Streamed text is not carried in events: the run holds it (`engine.StreamText`, handed out with `StreamBegan`
and kept in the run's `RunState.text`), and `TextArrived` only says more of it is there; each listener
coalesces those on its own side (`listen`), so a fast stream costs a few events per frame, not one per token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from visindigo.engine.record import record

if TYPE_CHECKING:
    from visindigo.engine import Dialog
    from visindigo.engine.events import Event


@record(frozen=True, slots=True)
class RunEvent:
    """Base of the run events; `dialog_id` is the dialog the run belongs to."""

    dialog_id: str


class RunStarted(RunEvent):
    """A run began (the driver is about to ask the provider)."""

    __slots__ = ()


@record(frozen=True, slots=True)
class EngineEvent(RunEvent):
    """An engine event of the dialog `dialog_id`, as the engine emitted it; `round` numbers the run's round it
    came in (0 outside a run: a message the user sent, a pin, a change of model).

    Forwarded: every event of a run but its deltas (their text is in the run's `StreamText`; `TextArrived`
    says it grew) and its last (`RunEnded` sums the run up), and what the workbench itself changes in a
    dialog (`MessageAppended` for a message sent, `MessageUpdated` for a pin, `DialogChanged` for a model)."""

    event: Event
    round: int = 0


class TextArrived(RunEvent):
    """More answer or reasoning text is in the run's `StreamText` (`RunState.text`); carries no text. Reported
    for every delta: each listener coalesces them (`tui.common.messages.listen`)."""

    __slots__ = ()


@record(frozen=True, slots=True)
class RunEnded(RunEvent):
    """The run is over: `outcome` is "finished", "empty" (it ended with an empty answer), "failed" or
    "cancelled"; `error` says why it failed."""

    outcome: str
    error: str = ""


class Sent(RunEvent):
    """The user sent something to the dialog (its messages were announced with `MessageAppended` just before):
    a pane showing it goes back to the bottom and drops the last run's notice."""

    __slots__ = ()


@record(frozen=True, slots=True)
class ShownChanged:
    """The dialog on the main screen changed from `previous` to `dialog`."""

    dialog: Dialog
    previous: Dialog | None


@record(frozen=True, slots=True)
class TreeChanged:
    """Dialogs were added, removed, renamed or re-linked: the tree index was rebuilt (`select_id`: put the
    tree's cursor there)."""

    select_id: str = ""


@record(frozen=True, slots=True)
class AttachmentsChanged:
    """The files or MCP resources waiting to go with the dialog's next message changed (the chips redraw)."""

    dialog_id: str


WorkbenchEvent = RunEvent | ShownChanged | TreeChanged | AttachmentsChanged
