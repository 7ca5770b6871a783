"""Dialog (spec file 001): one conversation, its configuration and its run loop.

The dialog owns its messages and the functions attached to it; skills, MCP servers and prompts attached here
override the Center's items of the same name. Every change is announced as an event to the dialog's
listeners (`subscribe`), which is how the store persists it and how `run()` reports progress.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

from .capability import Capability
from .function import Function, check_function_id
from .mcp_server import MCPServer
from .message import Message, Role
from .parameters import ParameterError, clean_parameters
from .prompt import Prompt
from .sanitize import clean_line
from .skill import Skill
from .stream_text import StreamText

if TYPE_CHECKING:
    from .approval import ApprovalCallback
    from .events import Event
    from .lookup import DialogHost

# The events (`events`, twenty frozen dataclasses: ~10 ms to define) are imported by the methods that emit
# them: a dialog is made, listed and shown at start-up before it emits anything, and the first frame need not
# wait for them.

log = logging.getLogger(__name__)

Listener = Callable[["Event"], None]
T = TypeVar("T")

#: The longest title a dialog keeps (imports cut longer ones and say so; the screens cut far shorter).
TITLE_LIMIT = 500



def new_dialog_id() -> str:
    """A random id in the form of a version-4 UUID, made without the `uuid` module: it imports `platform`,
    which alone cost `visindigo ask` about a tenth of its start (bench/ask_start.py)."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # the RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


class Dialog:
    """One conversation: messages, what it may use, and which provider and model answer it."""

    def __init__(self, center: DialogHost | None = None) -> None:
        self._id = new_dialog_id()
        self.center = center
        self._branch_from_id = ""
        self._title = ""
        self._provider_id = ""
        self._model_id = ""
        self._capability_requirement = Capability.TEXT
        self._parameters: dict[str, Any] = {}
        self.created_at = time.time()
        self._messages: list[Message] = []
        self._functions: dict[str, Function] = {}
        self._skills: dict[str, Skill] = {}
        self._mcp_servers: dict[str, MCPServer] = {}
        self._prompts: dict[str, Prompt] = {}
        self._listeners: list[Listener] = []
        self._streaming = False
        #: The round's text (`StreamText`), handed out with `StreamBegan`; a new one each round.
        self._stream: StreamText = StreamText()
        #: Function ids the user allowed for the rest of this dialog ("allow for this dialog").
        self.approved_function_ids: set[str] = set()
        self._running = False
        self._capture: list[Event] | None = None
        #: (provider id, model id) of models this dialog was told take no tools, so that is said once.
        self._told_no_tools: set[tuple[str, str]] = set()

    def __repr__(self) -> str:
        return f"Dialog(id={self._id!r}, messages={len(self._messages)}, title={self._title!r})"

    # --- identity and choices ---------------------------------------------------------------------------

    @property
    def id(self) -> str:
        """A UUID made at construction; only `from_json` (restoring a saved dialog) replaces it."""
        return self._id

    @property
    def branch_from_id(self) -> str:
        """The dialog this one replaces (regenerate / edit), or "" for a fresh dialog."""
        return self._branch_from_id

    @branch_from_id.setter
    def branch_from_id(self, value: str) -> None:
        self._set("_branch_from_id", value or "", "branch_from_id")

    @property
    def title(self) -> str:
        return self._title

    @title.setter
    def title(self, value: str) -> None:
        """Titles come from first messages, template and MCP prompt names, imports: one clean line, cut."""
        self._set("_title", clean_line(value, TITLE_LIMIT) if value else "", "title")

    @property
    def provider_id(self) -> str:
        """The provider to use; "" means the Center's default provider."""
        return self._provider_id

    @provider_id.setter
    def provider_id(self, value: str) -> None:
        self._set("_provider_id", value or "", "provider_id")

    @property
    def model_id(self) -> str:
        """The model to use; "" (or a model that is not available) lets the provider pick one."""
        return self._model_id

    @model_id.setter
    def model_id(self, value: str) -> None:
        self._set("_model_id", value or "", "model_id")

    @property
    def capability_requirement(self) -> Capability:
        """What the chosen model must be able to do (TEXT by default)."""
        return self._capability_requirement

    @capability_requirement.setter
    def capability_requirement(self, value: Capability) -> None:
        self._set("_capability_requirement", Capability(value), "capability_requirement")

    @property
    def parameters(self) -> dict[str, Any]:
        """The generation parameters that are set (a copy): see `engine.parameters` for names and rules."""
        return dict(self._parameters)

    @parameters.setter
    def parameters(self, values: dict[str, Any]) -> None:
        """Checked: a bad value raises `ParameterError` and changes nothing."""
        self._set("_parameters", clean_parameters(values), "parameters")

    def _set(self, attribute: str, value: object, what: str) -> None:
        if getattr(self, attribute) != value:
            setattr(self, attribute, value)
            self._changed(what)

    # --- functions ----------------------------------------------------------------------------------------

    def add_function(self, function: Function | None) -> Dialog:
        """Attach a function; one with the same id is replaced. None does nothing.

        Raises `InvalidFunctionId` for an id the chat APIs would reject.
        """
        if function is None:
            return self
        check_function_id(function.id)
        self._functions[function.id] = function
        return self

    def remove_function(self, function_id: str) -> Dialog:
        """Detach a function; the Center's function of that id applies again."""
        self._functions.pop(function_id, None)
        return self

    def get_function(self, function_id: str) -> Function | None:
        """The dialog's function of that id, else the Center's, else None."""
        found = self._functions.get(function_id)
        if found is None and self.center is not None:
            found = self.center.get_function(function_id)
        return found

    @property
    def function_ids(self) -> list[str]:
        """Ids of the dialog's own functions, without the Center's."""
        return list(self._functions)

    def effective_functions(self) -> list[Function]:
        """Every function a run may offer: the Center's, with the dialog's replacing same-id ones."""
        merged: dict[str, Function] = {}
        if self.center is not None:
            for function_id in self.center.function_ids:
                function = self.center.get_function(function_id)
                if function is not None:
                    merged[function_id] = function
        merged.update(self._functions)
        return list(merged.values())

    # --- skills, MCP servers, prompts (dialog overrides Center by name) ----------------------------------

    def add_skill(self, skill: Skill) -> Dialog:
        self._skills[skill.name] = skill
        self._changed("skills")
        return self

    def remove_skill(self, name: str) -> Dialog:
        if self._skills.pop(name, None) is not None:
            self._changed("skills")
        return self

    @property
    def skills(self) -> list[Skill]:
        """The dialog's own skills, without the Center's."""
        return list(self._skills.values())

    def effective_skills(self) -> list[Skill]:
        """The Center's skills with the dialog's replacing same-name ones, then the dialog's own."""
        return _merged(self.center.skills if self.center else [], self.skills, lambda s: s.name)

    def add_mcp(self, server: MCPServer) -> Dialog:
        self._mcp_servers[server.name] = server
        self._changed("mcp_servers")
        return self

    def remove_mcp(self, name: str) -> Dialog:
        if self._mcp_servers.pop(name, None) is not None:
            self._changed("mcp_servers")
        return self

    @property
    def mcp_servers(self) -> list[MCPServer]:
        """The dialog's own MCP servers (`getMCPs` in the spec)."""
        return list(self._mcp_servers.values())

    def effective_mcp_servers(self) -> list[MCPServer]:
        """The servers a run uses: the Center's, with the dialog's replacing same-name ones."""
        return _merged(self.center.mcp_servers if self.center else [], self.mcp_servers, lambda s: s.name)

    def add_prompt(self, prompt: Prompt) -> Dialog:
        self._prompts[prompt.name] = prompt
        self._changed("prompts")
        return self

    def remove_prompt(self, name: str) -> Dialog:
        if self._prompts.pop(name, None) is not None:
            self._changed("prompts")
        return self

    @property
    def prompts(self) -> list[Prompt]:
        """The dialog's own prompt templates."""
        return list(self._prompts.values())

    def get_prompt(self, name: str) -> Prompt | None:
        """The dialog's template of that name, else the Center's."""
        found = self._prompts.get(name)
        if found is None and self.center is not None:
            found = self.center.get_prompt(name)
        return found

    def effective_prompts(self) -> list[Prompt]:
        return _merged(self.center.prompts if self.center else [], self.prompts, lambda p: p.name)

    # --- messages -----------------------------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        """Copies of every message, oldest first."""
        return [m.copy() for m in self._messages]

    def read_messages(self) -> tuple[Message, ...]:
        """The messages themselves, not copies, for code that only reads them (the fit check measures a
        2,000-message dialog on each send: copying every message's metadata was most of its cost). Never change
        one: rewrite it with `replace_message`."""
        return tuple(self._messages)

    def message_at(self, index: int) -> Message:
        """A copy of one message (cheaper than `messages` for a long dialog)."""
        return self._messages[index].copy()

    @property
    def message_count(self) -> int:
        return len(self._messages)

    @property
    def last_message(self) -> Message:
        """The last message, or an empty message when there is none."""
        return self._messages[-1].copy() if self._messages else Message()

    @overload
    def append_message(self, message: Message, /) -> Dialog: ...

    @overload
    def append_message(self, role: Role, content: str, /) -> Dialog: ...

    def append_message(self, message_or_role: Message | Role, content: str = "", /) -> Dialog:
        """Append a message (or a role and its content) and emit `MessageAppended`."""
        from .events import MessageAppended

        if isinstance(message_or_role, Message):
            message = message_or_role.copy()
        else:
            message = Message(Role(message_or_role), content)
        self._messages.append(message)
        self.emit(MessageAppended(len(self._messages) - 1))
        return self

    def replace_message(self, index: int, message: Message) -> Dialog:
        """Rewrite one message in place (editing metadata such as an interrupted mark); emits MessageUpdated."""
        from .events import MessageUpdated

        self._messages[index] = message.copy()
        self.emit(MessageUpdated(index))
        return self

    def append_prompt(self, name: str, variables: dict[str, str] | None = None) -> Dialog:
        """Render the template `name` (dialog first, then Center) and append it; unknown names do nothing."""
        prompt = self.get_prompt(name)
        if prompt is not None:
            self.append_message(prompt.render(variables or {}))
        return self

    def clear_messages(self) -> Dialog:
        """Remove every message; skills, tools and model choice stay."""
        return self.truncate_to(0)

    def truncate_to(self, message_count: int) -> Dialog:
        """Keep the first `message_count` messages; a count at or above the current one does nothing."""
        from .events import MessagesTruncated

        count = max(0, message_count)
        if count < len(self._messages):
            del self._messages[count:]
            self.emit(MessagesTruncated(count))
        return self

    def find_last_assistant_message(self) -> int:
        """Index of the last assistant message, or -1. `truncate_to(index)` then drops that answer."""
        for index in range(len(self._messages) - 1, -1, -1):
            if self._messages[index].role is Role.ASSISTANT:
                return index
        return -1

    def copy_to(self, target: Dialog | None) -> bool:
        """Copy messages and configuration (not functions) into `target`, which keeps its own id.

        Returns False when `target` is None or this dialog itself.
        """
        if target is None or target is self:
            return False
        target.truncate_to(0)
        for message in self._messages:
            target.append_message(message)
        target._skills = dict(self._skills)
        target._mcp_servers = dict(self._mcp_servers)
        target._prompts = dict(self._prompts)
        target._provider_id = self._provider_id
        target._model_id = self._model_id
        target._capability_requirement = self._capability_requirement
        target._parameters = dict(self._parameters)
        target._changed("copied")
        return True

    # --- manual streaming API -----------------------------------------------------------------------------

    @property
    def is_streaming(self) -> bool:
        return self._streaming

    @property
    def streaming_content(self) -> str:
        """The answer received so far in the current round, not yet a message."""
        return self._stream.answer_so_far

    @property
    def reasoning_content(self) -> str:
        """The reasoning of the current round so far; cleared by `begin_assistant_message`."""
        return self._stream.reasoning_so_far

    def begin_assistant_message(self, *, request_tokens: int = 0, request_approximate: bool = True) -> None:
        """Start receiving an assistant message: a new `StreamText` for the round, handed out with `StreamBegan`
        (with the request's size when the caller counted it)."""
        from .events import StreamBegan

        self._streaming = True
        self._stream = StreamText()
        self.emit(StreamBegan(request_tokens, request_approximate, self._stream))

    def append_delta(self, text: str) -> None:
        """Add a fragment of the answer and emit `StreamDelta`."""
        from .events import StreamDelta

        if not text:
            return
        self._stream.answer.append(text)
        self.emit(StreamDelta(text))

    def append_reasoning(self, text: str) -> None:
        """Add a fragment of reasoning and emit `StreamReasoning`."""
        from .events import StreamReasoning

        if not text:
            return
        self._stream.reasoning.append(text)
        self.emit(StreamReasoning(text))

    def move_answer_to_reasoning(self) -> None:
        """What streamed as the answer of this message so far was reasoning: move it to the reasoning channel.

        For a `</think>` that nothing opened (the template opened the thought in the prompt). Emits
        `AnswerMovedToReasoning`; the answer continues from empty.
        """
        from .events import AnswerMovedToReasoning

        moved = self._stream.answer_so_far
        self._stream.answer.clear()  # in place: readers of the round's text see the answer start again
        if moved:
            self._stream.reasoning.insert(0, moved)
        self.emit(AnswerMovedToReasoning(moved))

    def abandon_stream(self) -> tuple[str, str]:
        """End the stream without a message or a `StreamEnded` (a failure or a cancel decides what to keep);
        returns what had arrived: (answer, reasoning)."""
        content, reasoning = self._stream.answer_so_far, self._stream.reasoning_so_far
        self._streaming = False
        self._stream = StreamText()  # the round's own keeps what arrived, for whoever holds it
        return content, reasoning

    def end_assistant_message(self, *, tool_calls: str = "", meta: dict[str, Any] | None = None) -> int:
        """Finish the stream: append the buffer as an assistant message, then emit `StreamEnded`.

        The buffered reasoning is written into the message *before* the buffers are cleared, so every answer
        keeps the thinking that led to it. With an empty buffer (and no tool calls) nothing is appended,
        but `StreamEnded` is still emitted so a UI can leave its "generating" state. Returns the index of the
        appended message, or -1.
        """
        from .events import MessageAppended, StreamEnded

        content = self._stream.answer_so_far
        reasoning = self._stream.reasoning_so_far
        index = -1
        if content or tool_calls:
            message = Message(
                Role.ASSISTANT, content, reasoning=reasoning, tool_calls=tool_calls, meta=dict(meta or {})
            )
            self._messages.append(message)
            index = len(self._messages) - 1
            self.emit(MessageAppended(index))
        self._streaming = False
        self._stream = StreamText()
        self.emit(StreamEnded(content))
        return index

    # --- run ----------------------------------------------------------------------------------------------

    @property
    def is_running(self) -> bool:
        return self._running

    def claim_run(self) -> list[Event] | None:
        """Start a run: mark the dialog running and record its events from now on into the list returned,
        which the run yields. None when a run holds the dialog already (one run per dialog, never queued)."""
        if self._running:
            return None
        self._running = True
        self._capture = []
        return self._capture

    def release_run(self) -> None:
        """The run is over (answered, failed or cancelled): the dialog takes the next one."""
        self._capture = None
        self._running = False

    def emit_outside_run(self, event: Event) -> None:
        """Emit to the listeners only: a refused second run must not show up in the first run's events."""
        saved, self._capture = self._capture, None
        try:
            self.emit(event)
        finally:
            self._capture = saved

    def note_no_tools(self, provider_id: str, model_id: str) -> bool:
        """Remember that this model takes no tools; True the first time only, so the user is told once."""
        told = (provider_id, model_id)
        if told in self._told_no_tools:
            return False
        self._told_no_tools.add(told)
        return True

    def run(self, *, approve: ApprovalCallback | None = None) -> AsyncIterator[Event]:
        """Send the dialog and stream the answer, running requested tools until the model answers.

        Iterate the result to receive this run's events in order (they also reach the listeners). A second
        `run()` while one is running yields a `RunFailed` at once and is not queued. `approve` decides on
        tools that need the user's consent; without it such tools are denied.
        """
        if self.center is None:
            return self._run_without_center()
        return self.center.run_dialog(self, approve=approve)

    async def _run_without_center(self) -> AsyncIterator[Event]:
        from .events import RunFailed

        failed = RunFailed(
            "this dialog belongs to no Center, so it has no provider; create it with center.create_dialog()"
        )
        self.emit(failed)
        yield failed

    # --- events -------------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every event of this dialog; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _changed(self, what: str) -> None:
        """Emit `DialogChanged(what)`: the dialog's configuration changed."""
        if self._capture is None and not self._listeners:
            return  # nobody to tell: the events module stays unloaded (`visindigo ask` before its question leaves)
        from .events import DialogChanged

        self.emit(DialogChanged(what))

    def emit(self, event: Event) -> None:
        """Tell the listeners (and the run in progress, which yields what it records) of an event.

        Public for the engine's parts that act on a dialog from outside it: the run loop, an MCP call's
        progress, sampling's usage. A host has no reason to call it; it subscribes.
        """
        if self._capture is not None:
            self._capture.append(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # one broken listener must not break the dialog or the others
                log.exception("dialog listener failed on %s", type(event).__name__)

    # --- JSON ---------------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The dialog as a JSON document: id, branch, choices, messages, skills, servers, prompts.

        Functions are code, not data, and are not written.
        """
        return {
            "id": self._id,
            "branch_from_id": self._branch_from_id,
            "title": self._title,
            "provider_id": self._provider_id,
            "model_id": self._model_id,
            "capability_requirement": self._capability_requirement.names(),
            "parameters": dict(self._parameters),
            "created_at": self.created_at,
            "messages": [m.to_json() for m in self._messages],
            "skills": [s.to_json() for s in self._skills.values()],
            "mcp_servers": [s.to_json() for s in self._mcp_servers.values()],
            "prompts": [p.to_json() for p in self._prompts.values()],
        }

    def from_json(self, data: dict[str, Any]) -> bool:
        """Restore from a document; returns whether the saved id was restored (kept as is without one).

        Functions are not in the document: attach them again with `add_function`, or the model's calls get
        an "unknown tool" answer.
        """
        restored = False
        saved_id = data.get("id")
        if isinstance(saved_id, str) and saved_id:
            self._id = saved_id
            restored = True
        self._branch_from_id = str(data.get("branch_from_id") or "")
        self._title = str(data.get("title") or "")
        self._provider_id = str(data.get("provider_id") or "")
        self._model_id = str(data.get("model_id") or "")
        self._capability_requirement = _read_capability(data.get("capability_requirement"))
        self._parameters = _read_parameters(data.get("parameters"), self._id)
        created = data.get("created_at")
        if isinstance(created, int | float) and not isinstance(created, bool):
            self.created_at = float(created)
        self._messages = [Message.from_json(m) for m in data.get("messages") or [] if isinstance(m, dict)]
        self._skills = {}
        for item in data.get("skills") or []:
            if isinstance(item, dict):
                skill = Skill.from_json(item)
                self._skills[skill.name] = skill
        self._mcp_servers = {}
        for item in data.get("mcp_servers") or []:
            if isinstance(item, dict):
                try:
                    server = MCPServer.from_json(item)
                except ValueError:
                    log.warning("skipping an unreadable MCP server entry in dialog %s", self._id)
                    continue
                self._mcp_servers[server.name] = server
        self._prompts = {}
        for item in data.get("prompts") or []:
            if isinstance(item, dict):
                prompt = Prompt.from_json(item)
                self._prompts[prompt.name] = prompt
        self._changed("loaded")
        return restored


def _read_parameters(value: object, dialog_id: str) -> dict[str, Any]:
    """Saved parameters; a value that no longer passes the checks is dropped with a warning, not the dialog."""
    if not isinstance(value, dict):
        return {}
    kept: dict[str, Any] = {}
    for name, item in value.items():
        try:
            kept.update(clean_parameters({name: item}))
        except ParameterError as error:
            log.warning("dialog %s: dropping parameter %s (%s)", dialog_id, name, error)
    return kept


def _read_capability(value: object) -> Capability:
    if isinstance(value, int) and not isinstance(value, bool):
        return Capability(value) or Capability.TEXT
    if isinstance(value, list):
        try:
            return Capability.from_names(str(v) for v in value) or Capability.TEXT
        except ValueError:
            return Capability.TEXT
    return Capability.TEXT


def _merged(base: list[T], override: list[T], key: Callable[[T], str]) -> list[T]:
    merged = {key(item): item for item in base}
    merged.update((key(item), item) for item in override)
    return list(merged.values())
