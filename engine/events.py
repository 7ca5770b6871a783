"""Events a dialog emits: one class for each signal of the spec, plus what a UI needs on top.

Events are frozen values. `MessageAppended` carries only the index, as the spec says: the receiver reads
the message from the dialog, so what it shows is always what the dialog holds. Likewise the text of a round
is held once, by the run (`StreamText`, handed out with `StreamBegan`): a UI reads it as it grows instead of
keeping a copy built from the deltas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .stream_text import StreamText as StreamText  # the type of `StreamBegan.text`, for its readers


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every dialog event."""


# --- the spec's signals -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessageAppended(Event):
    """A message was appended at `index` of `dialog.messages`."""

    index: int


@dataclass(frozen=True, slots=True)
class RunFailed(Event):
    """A run failed; `message` can be shown to the user as it is. No `StreamEnded` follows."""

    message: str


@dataclass(frozen=True, slots=True)
class ContextExceeded(RunFailed):
    """The server refused the request because it does not fit the model's context window (`message` names the
    window and the request's size). The question stays in the dialog; a UI offers to compact the dialog into a
    branch, to move the oldest turns out into a branch, or to send anyway. Zero where neither side could say."""

    window: int = 0
    request_tokens: int = 0
    #: Where `window` came from ("the server's error", or the model's window source).
    window_source: str = ""


@dataclass(frozen=True, slots=True)
class StreamBegan(Event):
    """A round of generation began; its deltas arrive from now on.

    `request_tokens` is the size of the request this round sent, counted before it went
    (`engine.context.counting`; `request_approximate` when some part was estimated): what "tokens in" shows
    while the answer streams from a server that reports usage only at its end. `text` is the round's text as it
    grows (`StreamText`, the run's own buffer). None of them takes part in equality, so `StreamBegan()` still
    names the spec's signal; `text` is no value of the event (not in its repr, nor in a JSON record of it)."""

    request_tokens: int = field(default=0, compare=False)
    request_approximate: bool = field(default=True, compare=False)
    text: StreamText = field(default_factory=StreamText, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class StreamDelta(Event):
    """A fragment of the answer. It may cut a character sequence or Markdown syntax in half."""

    text: str


@dataclass(frozen=True, slots=True)
class StreamReasoning(Event):
    """A fragment of the model's reasoning, a channel apart from the answer."""

    text: str


@dataclass(frozen=True, slots=True)
class StreamEnded(Event):
    """A round of generation ended; `full_content` is the whole answer of the round."""

    full_content: str


# --- beyond the spec: what a workstation shows --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessageUpdated(Event):
    """The message at `index` was rewritten in place (for example marked as interrupted)."""

    index: int


@dataclass(frozen=True, slots=True)
class MessagesTruncated(Event):
    """The dialog now holds only its first `count` messages (truncate_to / clear_messages)."""

    count: int


@dataclass(frozen=True, slots=True)
class DialogChanged(Event):
    """The dialog's configuration changed (provider, model, skills, servers, prompts, title, ...)."""

    what: str = ""


@dataclass(frozen=True, slots=True)
class ToolCallStarted(Event):
    """The run is about to execute a tool the model asked for."""

    call_id: str
    function_id: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolCallFinished(Event):
    """A tool finished; `result` is the text the model receives."""

    call_id: str
    function_id: str
    result: str
    is_error: bool = False
    duration: float = 0.0


@dataclass(frozen=True, slots=True)
class UsageReported(Event):
    """Token usage of one round, as the server reported it.

    `input_tokens` is the whole prompt on every wire, cache reads and writes included (see
    `engine.providers.base.UsagePart`): it is "tokens in" as the status line shows it. When a server reports none
    (llama.cpp's server without `stream_options`), the run loop records an estimate in the message's
    `meta["usage"]` with `"estimated": true` instead, and emits no `UsageReported`."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    cost: float | None = None


@dataclass(frozen=True, slots=True)
class AnswerMovedToReasoning(Event):
    """The text streamed as this round's answer was reasoning (a `</think>` that nothing opened): it is now in
    the reasoning channel, and the answer starts again from empty. `text` is what moved."""

    text: str


@dataclass(frozen=True, slots=True)
class EmptyAnswer(Event):
    """A round ended with neither text nor tool calls (a proxy turning a backend failure into an empty `stop`).

    No message is appended (the spec's rule); the run reports it so the user is not told all went well."""

    finish_reason: str = ""
    output_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Notice(Event):
    """Something the user should know about this run that is not a failure (another model was used, tools were
    left out because the model refused them), worded to be shown as it is."""

    text: str


@dataclass(frozen=True, slots=True)
class CacheBreak(Notice):
    """A notice that this round re-sent a prefix the last round had cached, and the server read less of it from
    its cache: `reason` says which change broke it, `tokens` how many were read (and written) again."""

    reason: str = ""
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class WaitingForProvider(Event):
    """The provider already serves as many runs as its `max_concurrent_runs` allows: this run waits its turn.

    The next `StreamBegan` means it started."""

    provider_name: str


@dataclass(frozen=True, slots=True)
class RunFinished(Event):
    """The run ended with an answer that asks for no more tools (after the last `StreamEnded`)."""


@dataclass(frozen=True, slots=True)
class RunCancelled(Event):
    """The run was cancelled by the user; the partial answer was kept and marked as interrupted."""


@dataclass(frozen=True, slots=True)
class ToolCallProgress(Event):
    """A running tool reported progress (MCP `notifications/progress`); `total` is None when unknown."""

    call_id: str
    function_id: str
    progress: float
    total: float | None = None
    message: str = ""
