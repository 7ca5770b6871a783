"""Driving one run: iterate `dialog.run()` and turn engine events into the workbench's run events.

The driver never touches a widget: it updates the run's `RunState` (plain data) and reports events. Streamed
text goes into `RunState.text_parts`; a `TextArrived` is reported only when none is waiting to be consumed, and
panes consume them at their frame rate. That is what keeps a 2,000-tokens-per-second stream from becoming
2,000 events and 2,000 redraws per second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from visindigo.engine import (
    AnswerMovedToReasoning,
    ContextExceeded,
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
from visindigo.tui.common.sanitize import clean
from visindigo.tui.workbench.events import (
    MessageAdded,
    MessageChanged,
    RunEnded,
    RunEvent,
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
from visindigo.tui.workbench.progress_text import progress_line
from visindigo.tui.workbench.runs import RunState

log = logging.getLogger(__name__)

Report = Callable[[RunEvent], None]


async def drive(dialog: Dialog, state: RunState, report: Report, approve: ApprovalCallback | None) -> None:
    """Run the dialog once, reporting through `report`; always ends with exactly one `RunEnded`.

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
    state.context_exceeded = False
    report(RunStarted(dialog_id))
    outcome, error = "finished", ""

    def text_arrived() -> None:
        state.last_token_at = time.monotonic()
        if not state.first_token_at:
            state.first_token_at = state.last_token_at
        if not state.notified:
            state.notified = True
            report(TextArrived(dialog_id))

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
                case StreamBegan(request_tokens=request_tokens):
                    state.waiting_for = ""
                    state.begin_round(time.monotonic())
                    state.round_input_estimate = request_tokens
                    report(StreamOpened(dialog_id, state.round))
                case AnswerMovedToReasoning(text=text):
                    state.text_parts = []
                    state.reasoning_parts.insert(0, text)
                    state.round_deltas = 0
                    report(StreamRestarted(dialog_id, state.round))
                case WaitingForProvider(provider_name=name):
                    state.waiting_for = clean(name)
                    report(RunNoted(dialog_id, f"waiting for {state.waiting_for}…", waiting=True))
                case Notice(text=text):
                    state.notes.append(clean(text))
                    report(RunNoted(dialog_id, state.notes[-1]))
                case EmptyAnswer(finish_reason=reason, output_tokens=tokens):
                    state.empty_rounds += 1
                    state.notes.append(empty_answer_note(reason, tokens))
                    report(RunNoted(dialog_id, state.notes[-1]))
                case StreamEnded():
                    state.streaming = False
                    report(StreamClosed(dialog_id, state.round))
                case MessageAppended(index=index):
                    report(MessageAdded(dialog_id, index))
                case MessageUpdated(index=index):
                    report(MessageChanged(dialog_id, index))
                case ToolCallStarted(call_id=call_id, function_id=function_id, arguments=arguments):
                    state.running_tools[call_id] = (function_id, dict(arguments))
                    report(ToolStarted(dialog_id, call_id, function_id, dict(arguments)))
                case ToolCallProgress(call_id=call_id, progress=progress, total=total, message=text):
                    report(ToolProgressed(dialog_id, call_id, progress_line(progress, total, text)))
                case ToolCallFinished(call_id=call_id, function_id=function_id, result=result):
                    state.running_tools.pop(call_id, None)
                    report(ToolFinished(dialog_id, call_id, function_id, result, event.is_error, event.duration))
                case UsageReported(input_tokens=input_tokens, output_tokens=output_tokens):
                    # the whole prompt, cache reads and writes included, on every wire (engine.context.usage)
                    state.input_tokens += input_tokens
                    state.round_input_estimate = 0
                    state.output_tokens += output_tokens
                    state.round_reported = True
                    report(UsageChanged(dialog_id))
                case ContextExceeded(message=message):
                    state.context_exceeded = True
                    outcome, error = "failed", message
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
        report(RunEnded(dialog_id, outcome, state.error))


def empty_answer_note(finish_reason: str, output_tokens: int) -> str:
    """The mark an empty round leaves in the dialog: what the server said, so a proxy's swallowed failure shows."""
    reason = clean(finish_reason) or "none"
    return f"The model returned an empty answer — finish reason {reason}, {output_tokens} tokens."
