"""Dialog.run() (spec file 001, `run()`): stream an answer, run the tools it asks for, repeat until it is done.

The run drives the dialog's own manual streaming API (`begin_assistant_message`, `append_delta`,
`append_reasoning`, `end_assistant_message`), so listeners and the iterator see exactly the same events: the
dialog records every event it emits while a run is active (`Dialog.claim_run`), and the generator yields them
after each step.

History stays consistent whatever happens:
- a failure (HTTP error, broken stream, an answer that stops without a finish reason) keeps the text that
  arrived as an assistant message marked "incomplete", drops the tool calls of that round, and emits
  `RunFailed` without `StreamEnded` (the spec's rule);
- a cancel (the consumer's task is cancelled, or the generator is closed early) keeps the partial answer
  marked "interrupted", gives every tool call that has no result yet a "cancelled" result, and emits
  `RunCancelled` to the listeners;
- so an assistant message with tool calls is always followed by one tool message per call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .applog import log_text
from .approval import DENIED_RESULT, Approval, ApprovalCallback, ToolCallRequest
from .attachments.errors import AttachmentError
from .attachments.routing import check_images_fit, image_refusal, question_has_images
from .capability import Capability
from .context.cache import watch_for
from .context.counting import RequestSize, counter_for
from .context.overflow import Overflow, overflow_in
from .events import (
    CacheBreak,
    ContextExceeded,
    EmptyAnswer,
    Event,
    Notice,
    RunCancelled,
    RunFailed,
    RunFinished,
    StreamEnded,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
    WaitingForProvider,
)
from .function import Function
from .message import Message, Role
from .provider import ModelInfo, NoModelAvailable, Provider
from .providers.base import (
    Adapter,
    ChatRequest,
    FinishPart,
    MovedToReasoningPart,
    ProviderError,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    UsagePart,
    output_limit,
    redact,
    retry_delay,
    retry_limit,
)
from .providers.models import ensure_models
from .providers.windows import ensure_windows, set_window
from .providers.windows import window as window_of
from .run_setup import choose_model, round_request, system_prompt
from .stop_reason import stop_reason
from .tool_context import ToolCallContext, current_tool_call
from .tool_runner import ToolOutcome, parse_arguments, run_function

if TYPE_CHECKING:
    from .dialog import Dialog

__all__ = ["ALREADY_RUNNING", "CANCELLED_RESULT", "ApprovalCallback", "run_dialog"]

log = logging.getLogger(__name__)

ALREADY_RUNNING = "this dialog is already generating an answer; wait for it to finish or cancel it first"
CANCELLED_RESULT = '{"error":"cancelled by the user before this tool finished"}'
DEFAULT_MAX_TOOL_ROUNDS = 16
#: Tool calls run per reply; a reply asking for thousands (a looping model) must not run, or show, thousands.
DEFAULT_MAX_TOOL_CALLS = 32


def over_cap_result(asked: int, cap: int) -> str:
    """The tool result of a call over the cap: the model reads why it did not run and can ask again."""
    return json.dumps(
        {
            "error": f"not run: this reply asked for {asked} tool calls and at most {cap} run per reply "
            "(the max_tool_calls setting); ask for the remaining ones in a later reply"
        }
    )


class _Failure(Exception):
    """A reason the run cannot go on, worded for the user."""


@dataclass
class _Setup:
    provider: Provider
    adapter: Adapter
    model: ModelInfo
    system: str
    functions: dict[str, Function]
    max_rounds: int
    max_calls: int = DEFAULT_MAX_TOOL_CALLS
    #: What the user should know before the first round (another model answers, ...), emitted as `Notice`s.
    notices: list[str] = field(default_factory=list)
    #: The model the dialog asked for, when another one answers instead.
    requested_model: str = ""
    #: Where `dialog_notice` reports (the dialog being run).
    emit: Callable[[Event], None] | None = None

    def dialog_notice(self, text: str) -> None:
        if self.emit is not None:
            self.emit(Notice(text))

    def request(self, dialog: Dialog, *, first_round: bool) -> ChatRequest:
        return round_request(self.provider, self.model, self.system, self.functions, dialog, first_round=first_round)


@dataclass
class _Round:
    """What one round received so far, and which tool calls still lack a result."""

    calls: list[ToolCallPart] = field(default_factory=list)
    finish: FinishPart | None = None
    usage: UsagePart | None = None
    #: `usage` was counted here because the server reported none.
    usage_estimated: bool = False
    #: Text and reasoning parts received: the output estimate for servers that report no usage.
    parts: int = 0
    #: The server's finish reason when the run loop read it otherwise (a length stop that was the context).
    server_finish_reason: str = ""
    unanswered: list[ToolCallPart] = field(default_factory=list)


async def run_dialog(dialog: Dialog, *, approve: ApprovalCallback | None = None) -> AsyncIterator[Event]:
    """The events of one run, in order; they also reach the dialog's listeners."""
    captured = dialog.claim_run()
    if captured is None:
        refused = RunFailed(ALREADY_RUNNING)
        dialog.emit_outside_run(refused)  # the running run must not report our refusal as its own
        yield refused
        return

    state = _Round()
    setup: _Setup | None = None
    holding: asyncio.Semaphore | None = None  # the provider's run slot while a request is out
    done = False
    try:
        try:
            setup = await _prepare(dialog)
        except _Failure as failure:
            dialog.emit(RunFailed(str(failure)))
            done = True
            for event in captured:
                yield event
            return

        setup.emit = dialog.emit
        for notice in setup.notices:
            dialog.emit(Notice(notice))
        rounds = 0
        while True:
            rounds += 1
            state = _Round()
            request = setup.request(dialog, first_round=rounds == 1)
            started = time.monotonic()
            log.debug(
                "round %d of dialog %s: provider %s, model %s, %d messages, %d tools",
                rounds,
                dialog.id,
                setup.provider.id,
                setup.model.id,
                len(request.messages),
                len(request.tools),
            )
            if request.messages:
                log_text(log, "last message", request.messages[-1].content)
            slots = setup.provider.run_slots
            if slots is not None:
                if slots.locked():
                    dialog.emit(WaitingForProvider(setup.provider.name))
                    for event in captured:
                        yield event
                    captured.clear()
                await slots.acquire()
                holding = slots
            counter = counter_for(setup.provider, setup.model)
            size = counter.count(dialog.id, request.system, request.tools, request.messages)
            dialog.begin_assistant_message(request_tokens=size.tokens, request_approximate=size.approximate)
            for event in captured:
                yield event
            captured.clear()

            failure_text = ""
            overflow: Overflow | None = None
            attempt = 0
            while True:
                try:
                    async with aclosing(setup.adapter.stream(request)) as parts:
                        async for part in parts:
                            if type(part) is TextPart:
                                state.parts += 1
                                dialog.append_delta(part.text)
                            elif type(part) is ReasoningPart:
                                state.parts += 1
                                dialog.append_reasoning(part.text)
                            elif type(part) is ToolCallPart:
                                state.calls.append(part)
                            elif type(part) is UsagePart:
                                state.usage = part
                                dialog.emit(
                                    UsageReported(
                                        part.input_tokens,
                                        part.output_tokens,
                                        part.reasoning_tokens,
                                        part.cached_tokens,
                                        part.cache_write_tokens,
                                        part.cost,
                                    )
                                )
                            elif type(part) is FinishPart:
                                state.finish = part
                            elif type(part) is MovedToReasoningPart:
                                dialog.move_answer_to_reasoning()
                            if captured:
                                for event in captured:
                                    yield event
                                captured.clear()
                except ProviderError as error:
                    if _retry_in_stream(error, dialog, state, setup, attempt):
                        await asyncio.sleep(retry_delay(setup.provider.settings, attempt))
                        attempt += 1
                        state = _Round()
                        continue
                    if _rejects_tools(error, request):
                        request = _without_tools(dialog, setup, request, error)
                        for event in captured:
                            yield event
                        captured.clear()
                        state = _Round()
                        continue
                    failure_text = str(error)
                    overflow = overflow_in(error.message)
                except Exception as error:  # a bug or an unwrapped transport error must not leave the dialog stuck
                    log.exception("provider %s failed", setup.provider.id)
                    failure_text = f"{setup.provider.name}: unexpected error: {type(error).__name__}: {error}"
                    for secret in setup.provider.secrets():
                        failure_text = redact(failure_text, secret)
                break
            if holding is not None:
                holding.release()
                holding = None
            if not failure_text and state.finish is None:
                failure_text = (
                    f"{setup.provider.name}: the answer is incomplete — the stream ended before the model finished "
                    "(no finish reason). The partial answer was kept; regenerate to try again."
                )
            log.debug(
                "round %d ended after %.2f s: %s%s",
                rounds,
                time.monotonic() - started,
                state.finish.reason if state.finish else "no finish",
                f", {len(state.calls)} tool calls" if state.calls else "",
            )
            if failure_text:
                log.warning("run of dialog %s failed: %s", dialog.id, failure_text)
                _close_stream(dialog, tool_calls="", meta=_meta(setup, state, "incomplete", failure_text), end=False)
                dialog.emit(
                    RunFailed(failure_text) if overflow is None else _exceeded(setup, overflow, failure_text, size)
                )
                done = True
                for event in captured:
                    yield event
                return

            calls = _unique_ids(state.calls)
            state.calls = calls
            _read_stop_reason(setup, request, state)  # before the estimate: an estimate cannot tell the two apart
            if state.usage is not None and state.usage.input_tokens:
                counter.learn(dialog.id, request.system, request.tools, request.messages, state.usage.input_tokens)
                broken = watch_for(setup.provider.id, setup.model.id).after_round(
                    dialog.id,
                    dialog.branch_from_id,
                    request.system,
                    request.tools,
                    request.messages,
                    state.usage.cached_tokens,
                    state.usage.cache_write_tokens,
                )
                if broken is not None:
                    reason, lost = broken
                    dialog.emit(
                        CacheBreak(
                            f"The prompt cache was broken: {reason}; {lost:,} tokens were read again at the full "
                            "price instead of from the cache.",
                            reason,
                            lost,
                        )
                    )
            if state.usage is None:
                # recorded in the message's meta as an estimate; no UsageReported: the server reported nothing
                state.usage = _estimated_usage(request, dialog, state)
                state.usage_estimated = True
            meta = _meta(setup, state, "", "")
            if calls or dialog.streaming_content:
                dialog.end_assistant_message(tool_calls=_tool_calls_json(calls), meta=meta)
            else:  # only reasoning (a token limit hit while thinking): keep it, end_assistant_message would not
                _close_stream(dialog, tool_calls="", meta=meta, end=True)
                reason = state.finish.reason if state.finish is not None else ""
                dialog.emit(EmptyAnswer(reason, state.usage.output_tokens))
            state.unanswered = list(calls)
            for event in captured:
                yield event
            captured.clear()
            if not calls:
                dialog.emit(RunFinished())
                done = True
                for event in captured:
                    yield event
                return

            for call in calls[: setup.max_calls]:
                arguments = _preview_arguments(call.arguments)
                dialog.emit(ToolCallStarted(call.id, call.name, arguments))
                for event in captured:
                    yield event
                captured.clear()
                outcome = ToolOutcome(CANCELLED_RESULT, True, 0.0, arguments)
                async for item in _run_tool_live(dialog, setup, call, arguments, approve, captured):
                    if isinstance(item, ToolOutcome):
                        outcome = item
                    else:
                        yield item
                dialog.emit(ToolCallFinished(call.id, call.name, outcome.text, outcome.is_error, outcome.duration))
                dialog.append_message(
                    Message(
                        Role.TOOL,
                        outcome.text,
                        name=call.name,
                        tool_call_id=call.id,
                        meta={"duration": round(outcome.duration, 3), "is_error": outcome.is_error},
                    )
                )
                state.unanswered.remove(call)
                for event in captured:
                    yield event
                captured.clear()

            for call in calls[setup.max_calls :]:  # asked for, but over the cap: answered, not run
                dialog.append_message(
                    Message(
                        Role.TOOL,
                        over_cap_result(len(calls), setup.max_calls),
                        name=call.name,
                        tool_call_id=call.id,
                        meta={"is_error": True, "over_cap": True},
                    )
                )
            state.unanswered = []
            for event in captured:
                yield event
            captured.clear()

            if rounds >= setup.max_rounds:
                dialog.emit(
                    RunFailed(
                        f"stopped after {setup.max_rounds} rounds of tool calls without a final answer; the tool "
                        "results so far are kept. Send a message to let the model continue, or raise the "
                        "max_tool_rounds setting ([run] in the config)."
                    )
                )
                done = True
                for event in captured:
                    yield event
                return
    except (asyncio.CancelledError, GeneratorExit):
        if not done:
            _cancel(dialog, setup, state)
        raise
    finally:
        if holding is not None:
            holding.release()
        dialog.release_run()


# --- preparing a run ----------------------------------------------------------------------------------------


async def _prepare(dialog: Dialog) -> _Setup:
    """Provider, model, tools and system prompt for this run; raises `_Failure` with an actionable message."""
    center = dialog.center
    if center is None:
        raise _Failure("this dialog belongs to no Center, so it has no provider; create it with center.create_dialog()")
    if dialog.provider_id:
        provider = center.get_provider(dialog.provider_id)
        if provider is None:
            raise _Failure(
                f"this dialog uses provider {dialog.provider_id!r}, which is not configured; pick another provider "
                "for the dialog or add it to the config"
            )
    else:
        provider = center.default_provider
        if provider is None:
            raise _Failure(
                "no provider is configured; add one (first-run setup or the providers screen), "
                "or start with --demo to try the app without one"
            )
    try:
        adapter = provider.adapter
    except ProviderError as error:
        raise _Failure(str(error)) from None

    functions: dict[str, Function] = {f.id: f for f in dialog.effective_functions()}
    servers = [s for s in dialog.effective_mcp_servers() if s.enabled]
    server_notes: list[str] = []
    if servers:
        from .mcp import tool_source_for  # only now: without servers the MCP package is never loaded

        try:
            source = tool_source_for(center)
            for function in await source.functions_for(servers):
                functions.setdefault(function.id, function)
            instructions_for = getattr(source, "instructions_for", None)
            if callable(instructions_for):
                server_notes = [
                    f"Instructions from MCP server {name!r}:\n{text}" for name, text in instructions_for(servers)
                ]
        except asyncio.CancelledError:
            raise
        except Exception as error:
            raise _Failure(f"the MCP tools could not be loaded: {error}") from None

    listing_problem = await ensure_models(provider, dialog.model_id)
    required = dialog.capability_requirement | Capability.TEXT
    messages = dialog.messages
    if question_has_images(messages):
        required |= Capability.IMAGE
    try:
        model = choose_model(provider, required, bool(functions), dialog.model_id)
    except NoModelAvailable as error:
        if listing_problem:  # the server's own words first: they say why (a proxy's "No connected db.")
            raise _Failure(f"listing the models failed: {listing_problem} — so {error}") from None
        if Capability.IMAGE in required and provider.models:
            raise _Failure(image_refusal(provider, dialog.model_id, center.providers)) from None
        raise _Failure(str(error)) from None
    if Capability.IMAGE in model.capabilities:
        try:
            # scaling a photo takes a second or more: not on the event loop (a cached copy returns at once)
            await asyncio.to_thread(check_images_fit, messages, provider)
        except AttachmentError as error:
            raise _Failure(error.message) from None
    try:
        await ensure_windows(provider)
    except Exception:  # the window is for the meter: a failure to learn it never stops a run
        log.exception("learning the context windows of %s failed", provider.id)
    notices = []
    if Capability.TOOLS not in model.capabilities:
        if functions and dialog.note_no_tools(provider.id, model.id):
            notices.append(_no_tools_notice(provider, model, dialog.parameters.get("tool_choice")))
        functions = {}
    requested = ""
    if dialog.model_id and model.id != dialog.model_id:
        requested = dialog.model_id
        notices.append(
            f"{dialog.model_id!r} is not available from {provider.name} for this dialog; {model.label!r} answers "
            "instead (pick another model to change it)"
        )

    system = system_prompt(dialog, server_notes)
    max_rounds = center.settings.get("max_tool_rounds", DEFAULT_MAX_TOOL_ROUNDS)
    if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) or max_rounds < 1:
        max_rounds = DEFAULT_MAX_TOOL_ROUNDS
    max_calls = center.settings.get("max_tool_calls", DEFAULT_MAX_TOOL_CALLS)
    if not isinstance(max_calls, int) or isinstance(max_calls, bool) or max_calls < 1:
        max_calls = DEFAULT_MAX_TOOL_CALLS
    return _Setup(provider, adapter, model, system, functions, max_rounds, max_calls, notices, requested)


def _no_tools_notice(provider: Provider, model: ModelInfo, choice: Any) -> str:
    """Why the dialog's tools stay out of this run (said once per dialog and model)."""
    why = _sources(model).get("tools") or "its capabilities (config or the server's model list) do not include tools"
    forced = f" and the forced tool choice {choice!r}" if choice and choice not in ("auto", "none") else ""
    return (
        f"{model.label} on {provider.name} takes no tools ({why}): this dialog's tools{forced} are not sent; "
        "pick a model that takes tools to use them"
    )


# --- tools --------------------------------------------------------------------------------------------------


async def _run_tool(
    dialog: Dialog, setup: _Setup, call: ToolCallPart, arguments: dict[str, Any], approve: ApprovalCallback | None
) -> ToolOutcome:
    function = setup.functions.get(call.name)
    if function is not None and function.requires_approval and function.id not in dialog.approved_function_ids:
        decision = Approval.DENY
        if approve is not None:
            hints = getattr(function, "hint_words", None)
            request = ToolCallRequest(
                call.id, function.id, function.name, arguments, dialog.id, tuple(hints() if callable(hints) else ())
            )
            try:
                decision = await approve(request)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the approval callback failed; denying %s", function.id)
        if decision is Approval.ALLOW_FOR_DIALOG:
            dialog.approved_function_ids.add(function.id)
        elif decision is not Approval.ALLOW_ONCE:
            return ToolOutcome(DENIED_RESULT, True, 0.0, arguments)
    return await run_function(function, call.name, call.arguments)


async def _run_tool_live(
    dialog: Dialog,
    setup: _Setup,
    call: ToolCallPart,
    arguments: dict[str, Any],
    approve: ApprovalCallback | None,
    captured: list[Event],
) -> AsyncIterator[Event | ToolOutcome]:
    """Run one call as a task and pass on what it emits meanwhile (progress), then its outcome, last.

    Cancelling the run cancels the task and waits for it, so an MCP call is abandoned with the protocol's
    `notifications/cancelled` before the run records the call as cancelled.
    """
    wake = asyncio.Event()
    unsubscribe = dialog.subscribe(lambda _event: wake.set())
    token = current_tool_call.set(ToolCallContext(dialog, call.id, call.name))
    try:
        task = asyncio.ensure_future(_run_tool(dialog, setup, call, arguments, approve))
    finally:
        current_tool_call.reset(token)
    try:
        while not task.done():
            waiter = asyncio.ensure_future(wake.wait())
            try:
                await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
            wake.clear()
            if captured:
                pending = list(captured)
                captured.clear()
                for event in pending:
                    yield event
        yield task.result()
    finally:
        unsubscribe()
        if not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait({task}, timeout=10.0)


def _preview_arguments(raw: str) -> dict[str, Any]:
    try:
        return parse_arguments(raw)
    except ValueError:
        return {}


def _unique_ids(calls: list[ToolCallPart]) -> list[ToolCallPart]:
    """Every call gets an id, unique within the message (some servers omit ids or repeat one)."""
    seen: set[str] = set()
    result = []
    for call in calls:
        call_id = call.id
        if not call_id or call_id in seen:
            call_id = f"call_{os.urandom(12).hex()}"
            call = ToolCallPart(call_id, call.name, call.arguments, call.extra)
        seen.add(call_id)
        result.append(call)
    return result


def _tool_calls_json(calls: list[ToolCallPart]) -> str:
    """The calls as an OpenAI-style array, the one format every adapter reads back."""
    if not calls:
        return ""
    entries = []
    for call in calls:
        entry: dict[str, Any] = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments or "{}"},
        }
        for key, value in call.extra.items():
            entry.setdefault(key, value)
        entries.append(entry)
    return json.dumps(entries, ensure_ascii=False, separators=(",", ":"))


# --- what a failed request can still become -----------------------------------------------------------------


def _retry_in_stream(error: ProviderError, dialog: Dialog, state: _Round, setup: _Setup, attempt: int) -> bool:
    """An error event inside the stream is retried like a 5xx — but only before any of the answer arrived, so
    nothing the user saw is taken back, and only while the provider's `max_retries` allows."""
    if not (error.in_stream and error.retryable) or attempt >= retry_limit(setup.provider.settings):
        return False
    return not (dialog.streaming_content or dialog.reasoning_content or state.calls)


_TOOL_WORDS = ("tool", "function call", "function_call")


def _rejects_tools(error: ProviderError, request: ChatRequest) -> bool:
    """The server refused the request because of its tools (Ollama "does not support tools", vLLM "auto tool
    choice requires --enable-auto-tool-choice", llama.cpp "tools param requires --jinja")."""
    if not request.tools or error.retryable or error.status not in (400, 422, 500, 501):
        return False
    lowered = error.message.lower()
    return any(word in lowered for word in _TOOL_WORDS)


def _without_tools(dialog: Dialog, setup: _Setup, request: ChatRequest, error: ProviderError) -> ChatRequest:
    """Learn that the model takes no tools (for this session), say so once, and ask again without them."""
    model = setup.model
    model.capabilities &= ~Capability.TOOLS
    model.extra["capability_sources"] = {**_sources(model), "tools": "learnt: the server rejected tools"}
    setup.functions = {}
    dialog.note_no_tools(setup.provider.id, model.id)
    words = error.message.split(": ", 1)[-1]
    setup.dialog_notice(
        f"{setup.provider.name} rejected the tools for {model.id} ({words}); it answers without tools from now on"
    )
    parameters = dict(request.parameters)
    parameters.pop("tool_choice", None)
    return replace(request, tools=[], parameters=parameters)


def _sources(model: ModelInfo) -> dict[str, str]:
    sources = model.extra.get("capability_sources")
    return dict(sources) if isinstance(sources, dict) else {}


def _read_stop_reason(setup: _Setup, request: ChatRequest, state: _Round) -> None:
    """A length stop that was the context filling gets its own reason (`stop_reason`); the server's word is kept."""
    if state.finish is None:
        return
    reason = stop_reason(
        state.finish.reason,
        state.usage,
        output_limit=output_limit(request),
        context_window=setup.model.context_window,
    )
    if reason != state.finish.reason:
        state.server_finish_reason = state.finish.reason
        state.finish = replace(state.finish, reason=reason)


def _estimated_usage(request: ChatRequest, dialog: Dialog, state: _Round) -> UsagePart:
    """Token counts when the server reports none: about four characters a token, and at least one token per
    streamed part for the output (llama.cpp sends one token per event)."""
    sent = len(request.system) + sum(len(m.content) + len(m.reasoning) + len(m.tool_calls) for m in request.messages)
    sent += len(json.dumps(request.tools)) if request.tools else 0
    received = len(dialog.streaming_content) + len(dialog.reasoning_content)
    received += sum(len(call.name) + len(call.arguments) for call in state.calls)
    return UsagePart(input_tokens=-(-sent // 4), output_tokens=max(state.parts, -(-received // 4)))


def _exceeded(setup: _Setup, overflow: Overflow, server_words: str, counted: RequestSize) -> ContextExceeded:
    """The server's "does not fit" as one message naming the window and the request's size; a window the server
    stated is learnt for the model (it outranks any other source: it is the one in force)."""
    model = setup.model
    if overflow.window:
        set_window(model, overflow.window, "learnt: the server's context error")
    window, source = window_of(model)
    request_tokens = overflow.request_tokens or counted.tokens
    if overflow.request_tokens or not counted.approximate:
        size = f"{request_tokens:,} tokens"
    else:
        size = f"~{request_tokens:,} tokens, counted here"
    fits = f"{window:,} tokens" if window else "a size the server did not state"
    words = server_words.split(": ", 1)[-1]
    message = (
        f"{setup.provider.name}: the request ({size}) does not fit the context window of {model.label} ({fits}). "
        f"The question stays in the dialog: compact the dialog into a branch, move the oldest turns out into a "
        f"branch, or send anyway. The server said: {words}"
    )
    return ContextExceeded(message, window, request_tokens, source)


# --- ending a round -----------------------------------------------------------------------------------------


def _meta(setup: _Setup | None, state: _Round, status: str, error: str) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    if setup is not None:
        meta["provider_id"] = setup.provider.id
        meta["model_id"] = setup.model.id
    if state.finish is not None:
        meta["finish_reason"] = state.finish.reason
        if state.server_finish_reason:
            meta["server_finish_reason"] = state.server_finish_reason
        if state.finish.meta:
            meta["provider_data"] = state.finish.meta
    if setup is not None and setup.requested_model:
        meta["requested_model_id"] = setup.requested_model
    if state.usage is not None:
        meta["usage"] = state.usage.to_json()
        # the answer's id travels with copies of the message into branches: the usage report counts it once
        meta["usage"]["answer"] = os.urandom(8).hex()
        meta["usage"]["at"] = round(time.time(), 3)
        if state.usage_estimated:
            meta["usage"]["estimated"] = True
    if status:
        meta["status"] = status
    if error:
        meta["error"] = error
    return meta


def _close_stream(dialog: Dialog, *, tool_calls: str, meta: dict[str, Any], end: bool) -> int:
    """End the dialog's stream outside the normal path: keep what arrived (reasoning too), optionally no
    `StreamEnded` (a failure must not emit one)."""
    content, reasoning = dialog.abandon_stream()
    index = -1
    if content or reasoning or tool_calls:
        dialog.append_message(Message(Role.ASSISTANT, content, reasoning=reasoning, tool_calls=tool_calls, meta=meta))
        index = dialog.message_count - 1
    if end:
        dialog.emit(StreamEnded(content))
    return index


def _cancel(dialog: Dialog, setup: _Setup | None, state: _Round) -> None:
    """Leave a consistent history after a cancel: partial answer kept, every call answered."""
    try:
        if dialog.is_streaming:
            calls = _unique_ids(state.calls)
            _close_stream(
                dialog, tool_calls=_tool_calls_json(calls), meta=_meta(setup, state, "interrupted", ""), end=True
            )
            state.unanswered = calls
        for call in state.unanswered:
            dialog.emit(ToolCallFinished(call.id, call.name, CANCELLED_RESULT, True, 0.0))
            dialog.append_message(
                Message(Role.TOOL, CANCELLED_RESULT, name=call.name, tool_call_id=call.id, meta={"is_error": True})
            )
        state.unanswered = []
    finally:
        dialog.emit(RunCancelled())
