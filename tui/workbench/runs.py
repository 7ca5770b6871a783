"""What is known about each dialog's run, as plain data the run's driver writes and the widgets read."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from visindigo.engine import StreamText
from visindigo.engine.record import record


@record
class RunState:
    """A run in progress (or the last one) of one dialog.

    Streamed text is not carried in events, nor copied here: `text` is the round's own `StreamText`, which
    the run appends to, and each pane showing the dialog draws what it has not drawn yet at its own frame rate.
    Only the run's side writes a `RunState` (the driver; the workbench as it starts or cancels the run); the
    widgets read it.
    """

    dialog_id: str
    running: bool = False
    #: Rounds of the run so far; each StreamBegan starts one.
    round: int = 0
    streaming: bool = False
    #: The current (or last) round's text as the run holds it: `text.answer`, `text.reasoning` (pieces).
    text: StreamText = field(default_factory=StreamText)
    started_at: float = 0.0
    round_started_at: float = 0.0
    first_token_at: float = 0.0
    last_token_at: float = 0.0
    #: Deltas received in this round: the live estimate of output tokens until usage is reported.
    round_deltas: int = 0
    #: The server reported this round's usage: its count replaces the estimate (a cancelled or broken round
    #: never reports, and keeps its estimate rather than dropping to 0 while its text is on screen).
    round_reported: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    #: The size of this round's request as the engine counted it before sending (`StreamBegan.request_tokens`):
    #: "tokens in" until the server reports usage, which many do only at the end of the answer (0 once it has).
    round_input_estimate: int = 0
    #: The run failed because the server refused the request for its size (`ContextExceeded`): the screen offers
    #: to compact the dialog, move its oldest turns out, or send again.
    context_exceeded: bool = False
    #: Calls started and not finished: call id -> (function id, arguments).
    running_tools: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    outcome: str = ""
    error: str = ""
    #: The user asked to cancel and the run has not ended yet (the status line says so until it has).
    cancelling: bool = False
    #: The provider this run waits for (its run limit is reached), "" once the run has its turn.
    waiting_for: str = ""
    #: What the run said the user should know (shown under the dialog when it ends).
    notes: list[str] = field(default_factory=list)
    #: Rounds that ended with neither text nor tool calls.
    empty_rounds: int = 0

    def begin_round(self, now: float, text: StreamText | None = None) -> None:
        """A round began (`StreamBegan`): `text` is where its text arrives (the run's own)."""
        self.round += 1
        self.streaming = True
        self.text = text if text is not None else StreamText()
        self.round_started_at = now
        self.first_token_at = 0.0
        self.round_deltas = 0
        self.round_reported = False
        self.round_input_estimate = 0

    def tokens_per_second(self, now: float | None = None) -> float:
        """Output speed of the current (or last) round: deltas over the time since the first one."""
        if not self.first_token_at or self.round_deltas < 2:
            return 0.0
        end = now if self.streaming and now is not None else self.last_token_at
        elapsed = end - self.first_token_at
        return (self.round_deltas - 1) / elapsed if elapsed > 0 else 0.0

    @property
    def live_output_tokens(self) -> int:
        """Reported output tokens, plus the estimate for the round whose usage has not been reported."""
        return self.output_tokens + (0 if self.round_reported else self.round_deltas)


class Runs:
    """Run states by dialog id; the workbench keeps one of these."""

    def __init__(self) -> None:
        self._states: dict[str, RunState] = {}

    def get(self, dialog_id: str) -> RunState | None:
        return self._states.get(dialog_id)

    def new(self, dialog_id: str) -> RunState:
        state = RunState(dialog_id)
        self._states[dialog_id] = state
        return state

    def is_running(self, dialog_id: str) -> bool:
        state = self._states.get(dialog_id)
        return state is not None and state.running

    def running_ids(self) -> list[str]:
        return [dialog_id for dialog_id, state in self._states.items() if state.running]
