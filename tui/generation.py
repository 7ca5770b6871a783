"""The generation worker's half: drive `dialog.run()` and turn engine events into Textual messages.

One run per dialog at a time, in an async worker the screen starts (`exclusive`, `exit_on_error=False`), so
a failing provider can never take the app down and a run goes on while the user reads another dialog. The
worker never touches a widget: it updates the run's `RunState` (plain data) and posts messages.

Streamed text goes into `RunState.text_parts`; a `TextArrived` is posted only when none is waiting to be
consumed, and the screen consumes them at its frame rate. That is what keeps a 2,000-tokens-per-second
stream from becoming 2,000 messages and 2,000 redraws per second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message as TextualMessage

from visindigo.engine import (
    AnswerMovedToReasoning,
    Dialog,
    EmptyAnswer,
    MessageAppended,
    MessageUpdated,
    Notice,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    UsageReported,
    WaitingForProvider,
)
from visindigo.engine.approval import ApprovalCallback

from .messages import (
    MessageAdded,
    MessageChanged,
    RunEnded,
    RunNoted,
    RunStarted,
    StreamClosed,
    StreamOpened,
    StreamRestarted,
    TextArrived,
    ToolFinished,
    ToolProgressed,
    ToolStarted,
    UsageChanged,
)
from .sanitize import clean
from .widgets.progress_text import progress_line

log = logging.getLogger(__name__)

Post = Callable[[TextualMessage], Any]


@dataclass
class RunState:
    """What the screen needs to know about a run in progress (or the last one) of one dialog."""

    dialog_id: str
    running: bool = False
    #: Rounds of the run so far; each StreamBegan starts one.
    round: int = 0
    streaming: bool = False
    text_parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)
    #: A TextArrived is waiting to be consumed; the consumer clears this.
    notified: bool = False
    started_at: float = 0.0
    round_started_at: float = 0.0
    first_token_at: float = 0.0
    last_token_at: float = 0.0
    #: Deltas received in this round: the live estimate of output tokens until usage is reported.
    round_deltas: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
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

    def begin_round(self, now: float) -> None:
        self.round += 1
        self.streaming = True
        self.text_parts = []
        self.reasoning_parts = []
        self.round_started_at = now
        self.first_token_at = 0.0
        self.round_deltas = 0

    def tokens_per_second(self, now: float | None = None) -> float:
        """Output speed of the current (or last) round: deltas over the time since the first one."""
        if not self.first_token_at or self.round_deltas < 2:
            return 0.0
        end = now if self.streaming and now is not None else self.last_token_at
        elapsed = end - self.first_token_at
        return (self.round_deltas - 1) / elapsed if elapsed > 0 else 0.0

    @property
    def live_output_tokens(self) -> int:
        """Reported output tokens, plus the estimate for a round still streaming."""
        return self.output_tokens + (self.round_deltas if self.streaming else 0)


class Runs:
    """Run states by dialog id; the screen keeps one of these."""

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


async def drive(dialog: Dialog, state: RunState, post: Post, approve: ApprovalCallback | None) -> None:
    """Run the dialog once, reporting through `post`; always ends with exactly one `RunEnded`.

    Cancellation (Esc) arrives as `CancelledError` at the next await; the engine keeps the partial answer
    (marked interrupted) and this still reports the end before letting the cancellation through.
    """
    dialog_id = dialog.id
    state.running = True
    state.started_at = time.monotonic()
    state.outcome = ""
    state.error = ""
    state.notes = []
    state.empty_rounds = 0
    post(RunStarted(dialog_id))
    outcome, error = "finished", ""

    def text_arrived() -> None:
        state.last_token_at = time.monotonic()
        if not state.first_token_at:
            state.first_token_at = state.last_token_at
        if not state.notified:
            state.notified = True
            post(TextArrived(dialog_id))

    try:
        async for event in dialog.run(approve=approve):
            match event:
                case StreamDelta(text=text):
                    state.text_parts.append(text)
                    state.round_deltas += 1
                    text_arrived()
                case StreamReasoning(text=text):
                    state.reasoning_parts.append(text)
                    text_arrived()
                case StreamBegan():
                    state.waiting_for = ""
                    state.begin_round(time.monotonic())
                    post(StreamOpened(dialog_id, state.round))
                case AnswerMovedToReasoning(text=text):
                    state.text_parts = []
                    state.reasoning_parts.insert(0, text)
                    state.round_deltas = 0
                    post(StreamRestarted(dialog_id, state.round))
                case WaitingForProvider(provider_name=name):
                    state.waiting_for = clean(name)
                    post(RunNoted(dialog_id, f"waiting for {state.waiting_for}…", waiting=True))
                case Notice(text=text):
                    state.notes.append(clean(text))
                    post(RunNoted(dialog_id, state.notes[-1]))
                case EmptyAnswer(finish_reason=reason, output_tokens=tokens):
                    state.empty_rounds += 1
                    state.notes.append(empty_answer_note(reason, tokens))
                    post(RunNoted(dialog_id, state.notes[-1]))
                case StreamEnded():
                    state.streaming = False
                    post(StreamClosed(dialog_id, state.round))
                case MessageAppended(index=index):
                    post(MessageAdded(dialog_id, index))
                case MessageUpdated(index=index):
                    post(MessageChanged(dialog_id, index))
                case ToolCallStarted(call_id=call_id, function_id=function_id, arguments=arguments):
                    state.running_tools[call_id] = (function_id, dict(arguments))
                    post(ToolStarted(dialog_id, call_id, function_id, dict(arguments)))
                case ToolCallProgress(call_id=call_id, progress=progress, total=total, message=text):
                    post(ToolProgressed(dialog_id, call_id, progress_line(progress, total, text)))
                case ToolCallFinished(call_id=call_id, function_id=function_id, result=result):
                    state.running_tools.pop(call_id, None)
                    post(ToolFinished(dialog_id, call_id, function_id, result, event.is_error, event.duration))
                case UsageReported(input_tokens=input_tokens, output_tokens=output_tokens):
                    state.input_tokens += input_tokens
                    state.output_tokens += output_tokens
                    post(UsageChanged(dialog_id))
                case RunFailed(message=message):
                    outcome, error = "failed", message
                case RunCancelled():
                    outcome = "cancelled"
                case RunFinished():
                    outcome = "finished"
    except asyncio.CancelledError:
        outcome = "cancelled"
        raise
    except Exception as exc:  # an engine bug must cost one run, not the session
        log.exception("run of dialog %s failed", dialog_id)
        outcome, error = "failed", f"unexpected error: {type(exc).__name__}: {exc}"
    finally:
        state.running = False
        state.cancelling = False
        state.streaming = False
        state.running_tools.clear()
        state.waiting_for = ""
        if outcome == "finished" and state.empty_rounds:
            outcome = "empty"  # not counted as an answer
        state.outcome = outcome
        state.error = clean(error)
        post(RunEnded(dialog_id, outcome, state.error))


def empty_answer_note(finish_reason: str, output_tokens: int) -> str:
    """The mark an empty round leaves in the dialog: what the server said, so a proxy's swallowed failure shows."""
    reason = clean(finish_reason) or "none"
    return f"The model returned an empty answer — finish reason {reason}, {output_tokens} tokens."
