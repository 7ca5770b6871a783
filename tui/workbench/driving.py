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
    Dialog,
    MessageAppended,
    MessageUpdated,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamBegan,
    StreamDelta,
    StreamEnded,
    StreamReasoning,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
)
from visindigo.engine.approval import ApprovalCallback

from ..sanitize import clean
from .events import (
    MessageAdded,
    MessageChanged,
    RunEnded,
    RunEvent,
    RunStarted,
    StreamClosed,
    StreamOpened,
    TextArrived,
    ToolFinished,
    ToolStarted,
    UsageChanged,
)
from .runs import RunState

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
                case StreamBegan():
                    state.begin_round(time.monotonic())
                    report(StreamOpened(dialog_id, state.round))
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
                case ToolCallFinished(call_id=call_id, function_id=function_id, result=result):
                    state.running_tools.pop(call_id, None)
                    report(ToolFinished(dialog_id, call_id, function_id, result, event.is_error, event.duration))
                case UsageReported(input_tokens=input_tokens, output_tokens=output_tokens):
                    state.input_tokens += input_tokens
                    state.output_tokens += output_tokens
                    report(UsageChanged(dialog_id))
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
        state.outcome = outcome
        state.error = clean(error)
        report(RunEnded(dialog_id, outcome, state.error))
