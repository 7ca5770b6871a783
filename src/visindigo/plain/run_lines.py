"""A run as lines: the workbench's run events of the shown dialog, written as a screen reader should meet them.

The answer and the reasoning stream as plain text after a label ("Answer: ", "Reasoning: "); a tool call, its
progress and its result are labelled lines; the end of a run is announced once ("Answer complete, 362 tokens,
98 tokens per second"). Nothing is ever redrawn: what arrived stays in the scrollback as it arrived.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from visindigo.engine import Dialog, Role
from visindigo.engine.sanitize import clean_line
from visindigo.plain.listing import call_line, result_line
from visindigo.plain.output import Output
from visindigo.tui.workbench import RunState, Workbench
from visindigo.tui.workbench.events import EngineEvent, RunEnded, RunStarted, TextArrived, WorkbenchEvent
from visindigo.tui.workbench.progress_text import is_waiting, note_line, tool_progress_line

if TYPE_CHECKING:
    from visindigo.engine.events import Event

#: Characters of the progress bar the workbench draws for a tool; the plain line keeps only its figures and words.
_BAR = "▕▏█░"
#: Figures in a progress message ("copied 37 files"): a change of figures alone is not a new line.
_NUMBERS = re.compile(r"[0-9][0-9.,]*")
#: "4/10 copying": the figures of a known total, as the workbench writes them after the bar.
_SHARE = re.compile(r"(\S+)/(\S+)")


def _tenth(body: str) -> int:
    """How many tenths of a known total are done (-1: no total)."""
    share = _SHARE.match(body)
    try:
        return int(10 * float(share[1]) / float(share[2])) if share else -1
    except (ValueError, ZeroDivisionError, OverflowError):
        return -1


class RunPrinter:
    """Listens to the workbench and writes the shown dialog's runs."""

    def __init__(self, workbench: Workbench, out: Output) -> None:
        self.workbench = workbench
        self.out = out
        #: How many answer and reasoning parts of the current round are written already.
        self._text_seen = 0
        self._reasoning_seen = 0
        #: What the open stream is: "answer", "reasoning" or "" (none open).
        self._streaming = ""
        #: Messages the dialog had when the run started (the run's answers come after).
        self._first_index = 0
        #: What each running tool's last progress line said (see `_progress`).
        self._progress_seen: dict[str, tuple[int, str]] = {}

    def heard(self, event: WorkbenchEvent) -> None:
        dialog = self.workbench.shown
        if getattr(event, "dialog_id", None) != dialog.id:
            return
        state = self.workbench.runs.get(dialog.id)
        match event:
            case RunStarted():
                self._first_index = dialog.message_count
                self._progress_seen.clear()
                self.out.line(f"Asking {model_name(self.workbench, dialog)}.", kind="status")
            case TextArrived() if state is not None:
                self._write_new(state)
            case EngineEvent(event=engine_event):
                self._engine(dialog, state, engine_event)
            case RunEnded(outcome=outcome, error=error):
                if state is not None:
                    self._write_new(state)
                self._streaming = ""
                self.out.line(self._ending(dialog, state, outcome, error), kind="problem" if error else "status")

    def _engine(self, dialog: Dialog, state: RunState | None, event: Event) -> None:
        """An engine event of the shown dialog's run, as the workbench forwarded it."""
        from visindigo.engine import events as e

        match event:
            case e.StreamBegan():
                self._new_round()
            case e.AnswerMovedToReasoning(text=moved):
                seen = self._reasoning_seen + (1 if moved else 0)  # the moved text went out as the answer
                self.out.line("What streamed as the answer was reasoning; the answer starts again.", kind="status")
                self._new_round()
                self._reasoning_seen = seen
            case e.StreamEnded():
                if state is not None:
                    self._write_new(state)
                self.out.end()
                self._streaming = ""
            case e.ToolCallStarted(function_id=function_id, arguments=arguments):
                self._streaming = ""
                self.out.line(call_line(function_id, arguments), label="Tool call:", kind="tool")
            case e.ToolCallProgress(call_id=call_id):
                self._progress(call_id, tool_progress_line(event))
            case e.ToolCallFinished(result=result, is_error=is_error):
                self.out.line(result_line(result), label="Tool error:" if is_error else "Tool result:", kind="tool")
            case e.WaitingForProvider() | e.Notice() | e.EmptyAnswer():
                text = note_line(event)
                self.out.line(text if is_waiting(event) else f"Note: {text}", kind="status")
            case e.MessageUpdated(index=index) if index < dialog.message_count:
                if dialog.message_at(index).meta.get("status") == "interrupted":
                    self.out.line(f"Message {index + 1} is marked as interrupted.", kind="status")

    def _progress(self, call_id: str, text: str) -> None:
        """A tool's progress as a line when it says something new: a tenth more of a known total, or words other
        than the last line's (a changed figure alone is not news) — a server reporting every 1% makes eleven
        lines, not a hundred, for a screen reader to hear."""
        body = text.strip(_BAR + " ")
        key = (_tenth(body), _NUMBERS.sub("#", body))
        if self._progress_seen.get(call_id) == key:
            return
        self._progress_seen[call_id] = key
        self.out.line(clean_line(body, 200), label="Tool progress:", kind="tool")

    def _new_round(self) -> None:
        self._text_seen = 0
        self._reasoning_seen = 0
        self._streaming = ""

    def _write_new(self, state: RunState) -> None:
        """Write the parts that arrived since the last write (reasoning first: it comes before the answer)."""
        reasoning = state.text.reasoning[self._reasoning_seen :]
        if reasoning:
            self._reasoning_seen += len(reasoning)
            self._write("reasoning", "Reasoning:", "".join(reasoning))
        text = state.text.answer[self._text_seen :]
        if text:
            self._text_seen += len(text)
            self._write("answer", "Answer:", "".join(text))

    def _write(self, kind: str, label: str, text: str) -> None:
        if self._streaming != kind:
            if not text.strip():
                return  # whitespace between reasoning and answer opens no section of its own
            self.out.begin(label, kind=kind)
            self._streaming = kind
            text = text.lstrip("\n")
        self.out.stream(text)

    def _ending(self, dialog: Dialog, state: RunState | None, outcome: str, error: str) -> str:
        if outcome == "failed":
            return f"Failed: {error or 'the run failed'}"
        if outcome == "cancelled":
            return "Cancelled; the partial answer is kept."
        if outcome == "empty":
            return "The model returned an empty answer."
        tokens, estimated = self._tokens(dialog)
        parts = ["Answer complete"]
        if tokens:
            parts.append(f"{'about ' if estimated else ''}{tokens} tokens")
        speed = state.tokens_per_second() if state is not None else 0.0
        if speed >= 0.5:
            parts.append(f"{speed:.0f} tokens per second")
        return ", ".join(parts) + "."

    def _tokens(self, dialog: Dialog) -> tuple[int, bool]:
        """Output tokens of the run's answers, as the server reported them (or the engine's estimate)."""
        total, estimated = 0, False
        for index in range(self._first_index, dialog.message_count):
            message = dialog.message_at(index)
            usage = message.meta.get("usage") if message.role is Role.ASSISTANT else None
            if isinstance(usage, dict):
                total += int(usage.get("output_tokens", 0) or 0)
                estimated = estimated or bool(usage.get("estimated"))
        return total, estimated


def model_name(workbench: Workbench, dialog: Dialog) -> str:
    """The model a run of `dialog` would use, as the status line names it."""
    status = workbench.status(dialog)
    model = status.model or "the default model"
    return f"{model} of {status.provider}" if status.provider else model
