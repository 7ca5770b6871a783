"""The client's side of the protocol for one server: what it answers when the server asks (SDK callbacks).

- **roots** (`roots/list`): the folder the app was started in, plus the server's own `roots` setting;
- **elicitation** (`elicitation/create`, form and URL mode): handed to the host, never answered here;
- **sampling** (`sampling/createMessage`): shown to the host first, run on the client's model only on approval
  (once, or for the rest of the session for this server); a denial is the protocol's error;
- **logging** (`notifications/message`): written to the server's log file.

The SDK declares a capability exactly when a callback is given, so a client without a host declares neither
elicitation nor sampling — a server then hides what needs them instead of being refused mid-call.
The SDK calls these with its own types; everything past this module sees `host` values.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..events import UsageReported
from ..tool_context import ToolCallContext, current_tool_call
from .answer_check import answer_problems, schema_error
from .host import ElicitationAnswer, ElicitationRequest, MCPHost, SamplingDecision, SamplingMessage, SamplingRequest
from .sampling import MAX_SAMPLING_TOKENS, SamplingFailed, choose_model, sample, sampling_parameters
from .url_elicitation import safe_url, shows_urls, url_request, visit

if TYPE_CHECKING:
    from ..lookup import DialogHost
    from ..mcp_server import MCPServer

log = logging.getLogger(__name__)

#: JSON-RPC error codes the client answers with.
USER_REJECTED = -1
INVALID_REQUEST = -32600
#: How many answers that do not match the schema a host may give before the request is cancelled.
MAX_ANSWERS = 3


def root_paths(server: MCPServer, start_folder: str | None = None) -> list[Path]:
    """The folders offered as roots: where the app started, then the server's own `roots` (deduplicated)."""
    folders = [Path(start_folder or os.getcwd())]
    folders += [Path(os.path.expanduser(folder)) for folder in server.roots]
    unique: list[Path] = []
    for folder in folders:
        resolved = folder.resolve()
        if resolved not in unique:
            unique.append(resolved)
    return unique


class ClientSide:
    """Answers one server's requests; `active_call` tells which dialog a request belongs to."""

    def __init__(
        self,
        server: MCPServer,
        *,
        host: MCPHost | None,
        center: DialogHost | None,
        active_call: Callable[[], ToolCallContext | None],
        waiting_on_user: Callable[[int], None],
        start_folder: str | None = None,
    ) -> None:
        self.server = server
        self.host = host
        self.center = center
        self._active_call = active_call
        self._waiting_on_user = waiting_on_user
        self.start_folder = start_folder
        self.sampling_allowed_for_session = False

    # --- what the SDK is given ----------------------------------------------------------------------------

    def callbacks(self) -> dict[str, Any]:
        """Keyword arguments for `mcp.client.Client`: only what this client can really answer."""
        callbacks: dict[str, Any] = {"list_roots_callback": self.list_roots}
        if self.host is not None:
            callbacks["elicitation_callback"] = self.elicit
            callbacks["sampling_callback"] = self.sample
        return callbacks

    def _call(self) -> ToolCallContext | None:
        return current_tool_call.get() or self._active_call()

    # --- roots --------------------------------------------------------------------------------------------

    async def list_roots(self, context: Any) -> Any:
        from mcp_types import ListRootsResult, Root

        return ListRootsResult(
            roots=[Root.model_validate({"uri": folder.as_uri(), "name": folder.name or str(folder)})
                   for folder in self.roots()]
        )

    def roots(self) -> list[Path]:
        return root_paths(self.server, self.start_folder)

    # --- elicitation --------------------------------------------------------------------------------------

    async def elicit(self, context: Any, params: Any) -> Any:
        from mcp_types import ElicitResult, ErrorData

        if self.host is None:  # pragma: no cover - the callback is only installed with a host
            return ErrorData(code=INVALID_REQUEST, message="elicitation is not supported by this client")
        mode = getattr(params, "mode", "form")
        if mode == "url":
            url = safe_url(getattr(params, "url", None))
            if url is None:
                return ErrorData(code=-32602, message="the URL is not a plain http(s) address; it was not shown")
            if not shows_urls(self.host):
                return ErrorData(code=INVALID_REQUEST, message=f"this client cannot show a page to open ({url})")
            request = url_request(self.server.name, params.message, url, getattr(params, "elicitation_id", ""))
        else:
            schema = params.requested_schema
            schema_dict = schema if isinstance(schema, dict) else schema.model_dump(by_alias=True, exclude_none=True)
            problem = schema_problem(schema_dict)
            if problem:
                return ErrorData(code=-32602, message=f"the requested schema cannot be shown as a form: {problem}")
            request = ElicitationRequest(self.server.name, str(params.message), "form", schema=schema_dict)
        self._waiting_on_user(+1)
        try:
            answer = await self._checked_answer(self.host, request)
        except asyncio.CancelledError:
            raise
        except NotImplementedError:  # a host that shows forms only
            return ErrorData(code=INVALID_REQUEST, message=f"this client cannot show a page to open ({request.url})")
        except Exception as error:  # the host failing must not crash the server's request
            log.info("the elicitation of MCP server %r failed in the client: %s", self.server.name, error)
            return ElicitResult(action="cancel")
        finally:
            self._waiting_on_user(-1)
        if answer.action == "accept" and mode != "url":
            return ElicitResult(action="accept", content=dict(answer.content or {}))
        return ElicitResult(action=answer.action)

    async def _checked_answer(self, host: MCPHost, request: ElicitationRequest) -> ElicitationAnswer:
        """The host's answer once it matches the server's schema; what does not is never sent.

        A refused answer goes back to the host with what is wrong (`problem`) and the answer itself (`refused`,
        to correct rather than retype); after `MAX_ANSWERS` refused answers the request is cancelled.
        """
        asked = request
        for _ in range(MAX_ANSWERS):
            answer = await host.elicit(asked)
            if answer.action != "accept" or request.mode != "form":
                return answer
            content = answer.content if answer.content is not None else {}
            problems = answer_problems(request.schema, content)
            if not problems:
                return answer
            log.info("MCP server %r: an answer that does not match its schema was not sent", self.server.name)
            refused = dict(content) if isinstance(content, dict) else {}
            asked = replace(request, problem="; ".join(problems), refused=refused)
        return ElicitationAnswer("cancel")

    async def visit_pages(self, tool: str, data: Any) -> str | None:
        """The pages a -32042 error asks the user to open, shown; None when the user finished them all."""
        return await visit(self.host, self.server.name, tool, data, self._waiting_on_user)

    # --- sampling -----------------------------------------------------------------------------------------

    async def sample(self, context: Any, params: Any) -> Any:
        from mcp_types import CreateMessageResult, ErrorData, TextContent

        if self.host is None:  # pragma: no cover - the callback is only installed with a host
            return ErrorData(code=INVALID_REQUEST, message="sampling is not supported by this client")
        request = sampling_request(self.server.name, params)
        if params.tools:
            return ErrorData(code=INVALID_REQUEST, message="sampling with tools is not supported by this client")
        call = self._call()
        dialog = call.dialog if call is not None else None
        center = dialog.center if dialog is not None and dialog.center is not None else self.center
        try:
            sampling_parameters(request)  # a temperature no model takes is refused before the user is asked
            provider, model = await choose_model(request, center, dialog)
        except SamplingFailed as error:
            return ErrorData(code=INVALID_REQUEST, message=str(error))
        request = replace(request, provider_id=provider.id, model_id=model.id)
        if not self.sampling_allowed_for_session:
            self._waiting_on_user(+1)
            try:
                decision = await self.host.approve_sampling(request)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.info("the sampling approval of MCP server %r failed in the client: %s", self.server.name, error)
                decision = SamplingDecision.DENY
            finally:
                self._waiting_on_user(-1)
            if decision is SamplingDecision.DENY:
                return ErrorData(code=USER_REJECTED, message="the user declined the sampling request")
            if decision is SamplingDecision.ALLOW_FOR_SERVER:
                self.sampling_allowed_for_session = True
        try:
            outcome = await sample(request, center, dialog)
        except SamplingFailed as error:
            return ErrorData(code=INVALID_REQUEST, message=f"sampling failed: {error}")
        if dialog is not None:
            dialog.emit(UsageReported(outcome.input_tokens, outcome.output_tokens))
        return CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=outcome.text),
            model=outcome.model_id,
            stop_reason=outcome.stop_reason,
        )


def sampling_request(server: str, params: Any) -> SamplingRequest:
    """The SDK's `CreateMessageRequestParams` as the plain value the user is shown."""
    messages = []
    for message in params.messages:
        texts: list[str] = []
        images: list[tuple[str, str]] = []
        for block in message.content_as_list:
            kind = getattr(block, "type", "")
            if kind == "text":
                texts.append(str(block.text))
            elif kind == "image":
                images.append((str(block.mime_type), str(block.data)))
            else:
                texts.append(f"[{kind} content]")
        messages.append(SamplingMessage(str(message.role), "\n".join(texts), tuple(images)))
    preferences = params.model_preferences
    hints = tuple(h.name for h in (preferences.hints or []) if h.name) if preferences is not None else ()
    return SamplingRequest(
        server=server,
        messages=tuple(messages),
        system_prompt=params.system_prompt or "",
        max_tokens=int(params.max_tokens),
        model_hints=hints,
        cost_priority=preferences.cost_priority if preferences else None,
        speed_priority=preferences.speed_priority if preferences else None,
        intelligence_priority=preferences.intelligence_priority if preferences else None,
        temperature=params.temperature,
        stop_sequences=tuple(params.stop_sequences or ()),
    )


def capped_tokens(request: SamplingRequest) -> tuple[int, bool]:
    """The token limit that will be used, and whether the server asked for more than the client allows."""
    wanted = request.max_tokens or MAX_SAMPLING_TOKENS
    return min(wanted, MAX_SAMPLING_TOKENS), wanted > MAX_SAMPLING_TOKENS


#: Property types an elicitation form can show (the spec allows only flat primitives).
_FORM_TYPES = ("string", "number", "integer", "boolean", "array")


def schema_problem(schema: dict[str, Any]) -> str:
    """Why a requested schema is not a flat object of primitives the form can show (and answers be checked
    against); "" when it is."""
    if schema.get("type") != "object":
        return "it is not an object schema"
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return "it has no 'properties' object"
    for name, prop in properties.items():
        if not isinstance(prop, dict):
            return f"property {name!r} is not a schema"
        kind = prop.get("type")
        if kind not in _FORM_TYPES and "enum" not in prop and "oneOf" not in prop:
            return f"property {name!r} has type {kind!r} (only string, number, integer, boolean and enums)"
    return schema_error(schema)
