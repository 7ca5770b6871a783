"""Driving one run: iterate `dialog.run()`, keep the run's `RunState`, and forward the engine's events.

The driver never touches a widget: it updates the run's `RunState` (plain data) and reports events. The
engine's events go on as they are (`EngineEvent`, with the dialog and the round added); the workbench adds
only the run as a whole (`RunStarted`, `RunEnded`) and `TextArrived` for the deltas, whose text the run itself
holds (`StreamText`, which `RunState.text` is) — each listener coalesces `TextArrived` on its side, so a
2,000-tokens-per-second stream does not become 2,000 redraws per second.
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
    Notice,
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
    WaitingForProvider,
)
from visindigo.engine.approval import ApprovalCallback
from visindigo.tui.common.sanitize import clean
from visindigo.tui.workbench.events import EngineEvent, RunEnded, RunEvent, RunStarted, TextArrived
from visindigo.tui.workbench.progress_text import note_line
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
    arrived = TextArrived(dialog_id)  # one value for every delta of the run

    def text_arrived() -> None:
        state.last_token_at = time.monotonic()
        if not state.first_token_at:
            state.first_token_at = state.last_token_at
        report(arrived)

    try:
        async for event in dialog.run(approve=approve):
            match event:
                case StreamDelta():
                    state.round_deltas += 1
                    text_arrived()
                    continue
                case StreamReasoning():
                    text_arrived()
                    continue
                case StreamBegan(request_tokens=request_tokens, text=text):
                    state.waiting_for = ""
                    state.begin_round(time.monotonic(), text)
                    state.round_input_estimate = request_tokens
                case AnswerMovedToReasoning():
                    state.round_deltas = 0  # the run's text moved it already
                case WaitingForProvider(provider_name=name):
                    state.waiting_for = clean(name)
                case Notice() | EmptyAnswer():
                    state.empty_rounds += isinstance(event, EmptyAnswer)
                    state.notes.append(note_line(event))
                case StreamEnded():
                    state.streaming = False
                case ToolCallStarted(call_id=call_id, function_id=function_id, arguments=arguments):
                    state.running_tools[call_id] = (function_id, dict(arguments))
                case ToolCallFinished(call_id=call_id):
                    state.running_tools.pop(call_id, None)
                case UsageReported(input_tokens=input_tokens, output_tokens=output_tokens):
                    # the whole prompt, cache reads and writes included, on every wire (engine.context.usage)
                    state.input_tokens += input_tokens
                    state.round_input_estimate = 0
                    state.output_tokens += output_tokens
                    state.round_reported = True
                case ContextExceeded(message=message):
                    state.context_exceeded = True
                    outcome, error = "failed", message
                    continue
                case RunFailed(message=message):
                    outcome, error = "failed", message
                    continue
                case RunCancelled():
                    outcome = "cancelled"
                    continue
                case RunFinished():
                    outcome = "finished"
                    continue
            report(EngineEvent(dialog_id, event, state.round))
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
