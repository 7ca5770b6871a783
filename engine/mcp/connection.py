"""One MCP server's live connection: started on first use, reused, restarted after a crash, stopped cleanly.

The SDK's `Client` is an async context manager whose task groups must be entered and left by the same task,
while tool calls come from whichever task runs a dialog and shutdown comes from the app's exit. So each
connection has a small owner task that enters the client, reports readiness, and waits to be told to stop;
everyone else just sends requests through the client (the SDK allows that from any task) and waits for the
answer. Every wait is bounded: the start by the manager's startup timeout, each call by the server's
`timeout`.

Nothing here raises into a dialog for a failed tool call: `call_tool` returns an `isError` object explaining
what happened (timeout, crash, refusal), because a tool's failure is information for the model.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..mcp_server import MCPServer, Transport
from ..message import Message
from ..tool_context import ToolCallContext, current_tool_call
from .calls import CallTimedOut, ToolCallWatch, call_with_progress
from .changes import ChangeFollowing
from .client_side import ClientSide
from .content import call_result_to_dict, prompt_messages
from .expand import ResolvedServer, UnsetVariable, redact, resolve
from .listing import list_prompts, list_resources, list_tools
from .sdk import sdk_problem
from .server_log import ServerLog, log_file_name
from .start_failure import StartFailures, root_cause
from .status import MCPPromptInfo, MCPServerError, ResourceInfo, ServerState, ServerStatus, ToolInfo
from .url_elicitation import MAX_ROUNDS as MAX_URL_ROUNDS
from .url_elicitation import URL_ELICITATION_REQUIRED, required_text

if TYPE_CHECKING:
    from mcp.client import Client

    from ..lookup import DialogHost
    from .host import MCPHost

log = logging.getLogger(__name__)

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001


def fingerprint(server: MCPServer) -> str:
    """Identity of a config: two servers with the same name but different settings are different processes."""
    return json.dumps(server.to_json(), sort_keys=True)


def _announces_changes(client: Client) -> bool:
    capabilities = client.server_capabilities
    return bool(
        (capabilities.tools and capabilities.tools.list_changed)
        or (capabilities.prompts and capabilities.prompts.list_changed)
    )


class ServerConnection(StartFailures, ServerLog, ChangeFollowing):
    """The running (or stopped) instance of one server config."""

    def __init__(
        self,
        server: MCPServer,
        *,
        log_dir: Path | None,
        startup_timeout: float,
        list_refresh: float = 30.0,
        host: MCPHost | None = None,
        center: DialogHost | None = None,
        credentials_file: Path | None = None,
    ) -> None:
        self.server = server
        self.fingerprint = fingerprint(server)
        self.log_path = log_dir / log_file_name(server.name) if log_dir is not None else None
        self.startup_timeout = startup_timeout
        #: Seconds after which a run asks a running server for its tools again.
        self.list_refresh = list_refresh
        self._listed_at = 0.0
        self._lists_changed = False
        self.state = ServerState.STOPPED
        self.error = ""
        self.tools: list[ToolInfo] = []
        self.task_only_tools: list[str] = []
        self.prompts: list[MCPPromptInfo] = []
        self.resources: list[ResourceInfo] = []
        self.instructions = ""
        #: Tool calls under way, newest last: a server request that comes without context belongs to them.
        self._calls: list[ToolCallWatch] = []
        #: Listeners of `notifications/resources/updated`, by URI.
        self.resource_listeners: dict[str, list[Any]] = {}
        self.client_side = ClientSide(
            server, host=host, center=center, active_call=self._active_call, waiting_on_user=self._waiting_on_user
        )
        self.protocol_version = ""
        self.server_version = ""
        #: The transport in use: the configured one, or "sse" when an unlabelled URL turned out to be legacy SSE.
        self.transport: Transport = server.kind
        #: The last HTTP error status (and reason phrase) the server answered since the latest start began.
        self._http_refusal: tuple[int, str] | None = None
        #: Calls under way; the manager only retires idle connections.
        self.in_flight = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._stopping = False
        self._lock = asyncio.Lock()
        self._secrets: frozenset[str] = frozenset()
        self._errlog: TextIO | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._announces_changes = False
        #: Where OAuth tokens are kept; None: this connection never signs in.
        self.credentials_file = credentials_file
        #: The user asked to sign in (the MCP screen): OAuth is used even if the config does not say so.
        self.sign_in_requested = False
        #: The authorization page is being shown: the start-up timeout waits for the person.
        self.signing_in = False
        self._listen_task: asyncio.Task[None] | None = None

    # --- status -------------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.server.name

    @property
    def request_timeout(self) -> float | None:
        """Seconds a request may take; a `timeout` of 0 or less means no limit."""
        return self.server.timeout if self.server.timeout > 0 else None

    @property
    def client(self) -> Client | None:
        """The SDK client while the server runs (for the resource and completion requests)."""
        return self._client

    @property
    def is_running(self) -> bool:
        return self.state is ServerState.RUNNING and self._client is not None

    def status(self) -> ServerStatus:
        return ServerStatus(
            name=self.name,
            state=self.state,
            error=self.error,
            tool_count=len(self.tools),
            prompt_count=len(self.prompts),
            tools=tuple(self.tools),
            task_only_tools=tuple(self.task_only_tools),
            resource_count=len(self.resources),
            instructions=self.instructions,
            log_path=str(self.log_path) if self.log_path is not None and self.server.kind == "stdio" else None,
            transport=self.transport,
            protocol_version=self.protocol_version,
            server_version=self.server_version,
        )

    # --- lifecycle ----------------------------------------------------------------------------------------

    def _listing_due(self) -> bool:
        """A server that announces list changes is re-read when it does; others when the listing is old."""
        if self._lists_changed:
            return True
        return not self._announces_changes and time.monotonic() - self._listed_at >= self.list_refresh

    async def ensure_running(self, *, fresh_lists: bool = False) -> None:
        """Start the server unless it is running; raise `MCPServerError` saying why it cannot be.

        With `fresh_lists` (a run is about to begin), a running server whose tool list is older than
        `list_refresh` seconds, or that announced a change, is asked again; that also finds a server that
        died while idle, which is then restarted here instead of failing the model's first call.
        """
        if self.is_running and not (fresh_lists and self._listing_due()):
            return
        async with self._lock:
            if self.is_running:
                if fresh_lists and self._listing_due():
                    await self._refresh_lists()
                if self.is_running:
                    return
            await self._stop_locked(keep_error=True)
            self.state = ServerState.STARTING
            self.error = ""
            problem = sdk_problem()
            if problem:
                self._fail(f"MCP server {self.name!r} could not start: {problem}")
                raise MCPServerError(self.error, server=self.name) from None
            try:
                resolved = resolve(self.server)
            except UnsetVariable as problem:
                self._fail(f"MCP server {self.name!r} could not start: {problem}")
                raise MCPServerError(self.error, server=self.name) from None
            self._secrets = resolved.secrets
            self._http_refusal = None
            if missing_sdk():
                self._fail(f"MCP server {self.name!r} could not start: {MISSING_SDK}")
                raise MCPServerError(self.error, server=self.name) from None
            self.loop = asyncio.get_running_loop()
            error = await self._attempt(resolved, self.server.kind)
            if error is not None and self._may_be_legacy_sse():
                # The spec's advice for a URL of unknown kind: a 4xx to the Streamable HTTP POST means "try the
                # old HTTP+SSE transport" (what Cursor does with an unlabelled URL).
                log.info("MCP server %r refused Streamable HTTP; trying legacy SSE", self.name)
                if await self._attempt(resolved, "sse") is None:
                    error = None
            if error is not None:
                self.transport = self.server.kind
                self._fail(self._describe(error))
                raise MCPServerError(self.error, server=self.name) from None
            self.state = ServerState.RUNNING

    async def _attempt(self, resolved: ResolvedServer, transport: Transport) -> Exception | None:
        """Start the owner task over `transport` and wait for it to be ready; the reason when it is not."""
        assert self.loop is not None
        self.transport = transport
        self._stop = asyncio.Event()
        self._stopping = False
        ready: asyncio.Future[None] = self.loop.create_future()
        self._task = asyncio.create_task(self._own(resolved, transport, ready), name=f"mcp server {self.name}")
        try:
            await self._wait_ready(ready)
        except asyncio.CancelledError:
            await asyncio.shield(self._stop_locked(keep_error=False))
            raise
        except Exception as error:  # a TimeoutError, or the owner task's report of why it could not start
            await self._stop_locked(keep_error=True)
            return error
        return None

    async def _wait_ready(self, ready: asyncio.Future[None]) -> None:
        """Wait out the start-up timeout — which does not run while the user signs in in the browser."""
        while True:
            try:
                await asyncio.wait_for(asyncio.shield(ready), self.startup_timeout)
                return
            except TimeoutError:
                if not self.signing_in:
                    raise
                while self.signing_in and not ready.done():  # bounded by the sign-in's own timeout
                    await asyncio.sleep(0.2)

    def _on_http_error(self, status: int, phrase: str) -> None:
        self._http_refusal = (status, phrase)

    def _fail(self, message: str) -> None:
        self.state = ServerState.FAILED
        self.error = message
        log.info("%s", message)

    async def _own(self, resolved: ResolvedServer, transport_kind: Transport, ready: asyncio.Future[None]) -> None:
        """The owner task: enter the client, list what the server offers, then wait until told to stop."""
        from mcp.client import Client
        from mcp_types import Implementation

        from .transports import open_transport

        try:
            with self._open_log() as errlog:
                self._errlog = errlog
                transport = open_transport(
                    transport_kind, resolved, errlog, self._on_stream_end, self._on_http_error, self._oauth()
                )
                client = Client(
                    transport,
                    # The handshake is bounded by the start-up timeout (a server may be slow to load); each request
                    # after it by the server's `timeout` (tool calls by the progress-aware clock in `calls`).
                    read_timeout_seconds=None,
                    client_info=Implementation(name="visindigo", version="0.1.0"),
                    logging_callback=self._on_log_message,
                    log_level=self.server.log_level or None,
                    message_handler=self._on_message,
                    cache=None,
                    # The handshake era by default: every server speaks it, and on a 2026-07-28 connection an SDK
                    # server's ctx.elicit / create_message / list_roots fail ("no back-channel").
                    mode="auto" if self.server.protocol == "auto" else "legacy",
                    **self.client_side.callbacks(),
                )
                async with client:
                    self.protocol_version = client.protocol_version
                    info = client.server_info
                    self.server_version = f"{info.name} {info.version}" if info is not None else ""
                    self.instructions = client.instructions or ""
                    await self._set_log_level(client)
                    self._announces_changes = _announces_changes(client)
                    await self._list_everything(client)
                    self._listed_at = time.monotonic()
                    self._lists_changed = False
                    self._client = client
                    if not ready.done():
                        ready.set_result(None)
                    self.restart_listening()
                    try:
                        await self._stop.wait()
                    finally:
                        self._stop_listening()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError(repr(error)))
            if isinstance(error, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
            if not self._stopping:
                # info, not warning: with no logging set up, a warning would be printed over the screen.
                log.info("MCP server %r ended with %s", self.name, type(root_cause(error)).__name__)
        finally:
            self._client = None
            self._errlog = None
            if not self._stopping and self.state is ServerState.RUNNING:
                self._fail(
                    f"MCP server {self.name!r} stopped unexpectedly; it will be restarted on next use"
                    f"{self._where_to_look()}"
                )

    def _on_stream_end(self) -> None:
        """The server's stream ended: unless we are stopping it, it crashed or hung up."""
        if self._stopping:
            return
        self._fail(
            f"MCP server {self.name!r} stopped unexpectedly; it will be restarted on next use{self._where_to_look()}"
        )
        self._client = None
        self._stop.set()

    async def _list_everything(self, client: Client) -> None:
        self.tools, self.task_only_tools = await list_tools(client)
        self.prompts = await list_prompts(client, self.name)
        self.resources = await list_resources(client, self.name)

    def _oauth(self) -> Any:
        """The SDK's OAuth provider for an HTTP server that signs in (configured, asked for, or signed in before)."""
        if self.server.kind == "stdio" or self.credentials_file is None:
            return None
        from .oauth import OAuthSignIn

        sign_in = OAuthSignIn(self.server, self.credentials_file, self.client_side.host, self._set_signing_in)
        if not (self.server.oauth or self.sign_in_requested or sign_in.storage.has_tokens()):
            return None
        return sign_in.auth()

    def _set_signing_in(self, value: bool) -> None:
        self.signing_in = value

    def _active_call(self) -> ToolCallContext | None:
        return self._calls[-1].context if self._calls else None

    def _waiting_on_user(self, delta: int) -> None:
        """While a person answers a server's question, no call of this server times out."""
        for watch in self._calls:
            watch.waiting_on_user += delta

    async def _refresh_lists(self) -> None:
        """List tools and prompts again; a connection that turns out dead is marked for a restart."""
        from mcp.shared.exceptions import MCPError

        client = self._client
        if client is None:
            return
        self._lists_changed = False
        try:
            await asyncio.wait_for(self._list_everything(client), self.request_timeout)
        except TimeoutError:
            log.info("MCP server %r did not list its tools again within %s s", self.name, self.request_timeout)
        except MCPError as error:
            if error.code == _CONNECTION_CLOSED:
                self._on_stream_end()
            else:  # keep the lists we have; the server may still run the tools
                log.info("MCP server %r could not list its tools again: %s", self.name, error)
        except Exception as error:  # transport failure: start over
            log.info("MCP server %r failed while listing its tools: %s", self.name, type(error).__name__)
            self._on_stream_end()
        self._listed_at = time.monotonic()

    async def stop(self) -> None:
        """Stop the server (closing stdin, then terminating it) and wait until it is gone."""
        async with self._lock:
            await self._stop_locked(keep_error=False)

    async def _stop_locked(self, *, keep_error: bool) -> None:
        task = self._task
        self._task = None
        if task is not None and not task.done():
            self._stopping = True
            self._stop.set()
            if self._client is None:
                # Still starting (say, a server silent in its handshake): nothing to wind down politely.
                # Cancelling is safe: the SDK shields the part that stops the process.
                task.cancel()
            try:
                # The SDK bounds its own shutdown (close stdin, wait, terminate, kill): about 6 s at worst.
                await asyncio.wait_for(asyncio.shield(task), 15.0)
            except TimeoutError:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            except (Exception, asyncio.CancelledError):
                # The owner task's own failure (already recorded) or its cancellation just above; but a
                # cancellation of *this* task must still propagate.
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise
        self._client = None
        if not keep_error:
            self.state = ServerState.STOPPED
            self.error = ""

    # --- requests -----------------------------------------------------------------------------------------

    async def call_tool(self, tool_name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call a tool; every failure comes back as `{"isError": true, "error": …}` for the model to read."""
        try:
            await self.ensure_running()
        except MCPServerError as error:
            return {"isError": True, "error": str(error)}
        client = self._client
        if client is None:
            return {"isError": True, "error": self.error or f"MCP server {self.name!r} is not running"}
        from mcp.shared.exceptions import MCPError

        self.in_flight += 1
        started = time.monotonic()
        watch = ToolCallWatch(current_tool_call.get())
        self._calls.append(watch)
        try:
            for rounds in range(MAX_URL_ROUNDS + 1):
                try:
                    result = await call_with_progress(
                        client, tool_name, arguments, timeout=self.request_timeout, watch=watch
                    )
                    break
                except MCPError as error:
                    if error.code != URL_ELICITATION_REQUIRED or rounds == MAX_URL_ROUNDS:
                        raise
                    # The server wants the user on a page first (a sign-in, a consent): shown, then asked again.
                    refusal = await self.client_side.visit_pages(tool_name, error.data)
                    if refusal is not None:
                        return {"isError": True, "error": self._redacted(refusal)}
        except CallTimedOut:
            return {
                "isError": True,
                "error": f"MCP server {self.name!r} did not answer tool {tool_name!r} within {self.server.timeout:g} s "
                f"and sent no progress meanwhile (waited {time.monotonic() - started:.1f} s in all); the call was "
                "cancelled",
            }
        except MCPError as error:
            return {"isError": True, "error": self._request_failure(error, f"tool {tool_name!r}", started)}
        except RuntimeError as error:
            if "structured content" not in str(error) and "schema" not in str(error):
                raise
            # The SDK checks a result against the tool's outputSchema: a broken result is the tool's fault,
            # not the connection's, so the server keeps running.
            return {"isError": True, "error": self._redacted(
                f"MCP server {self.name!r} answered tool {tool_name!r} with a result that does not match the "
                f"tool's own output schema: {error}")}
        except Exception as error:  # transport failure (HTTP error, broken pipe): restart on next use
            message = self._redacted(f"MCP server {self.name!r} failed during tool {tool_name!r}: "
                                     f"{type(error).__name__}: {error}")
            self._fail(message + "; it will be restarted on next use")
            self._stop.set()
            return {"isError": True, "error": message}
        finally:
            self.in_flight -= 1
            self._calls.remove(watch)
        tool = next((t for t in self.tools if t.name == tool_name), None)
        return call_result_to_dict(result, tool.output_schema if tool is not None else None)

    def _request_failure(self, error: Any, what: str, started: float) -> str:
        """Readable text for an `MCPError`; a closed connection also marks the server for a restart."""
        code = getattr(error, "code", None)
        if code == _REQUEST_TIMEOUT:
            return (f"MCP server {self.name!r} did not answer {what} within {self.server.timeout:g} s "
                    f"(waited {time.monotonic() - started:.1f} s); the call was abandoned")
        if code == URL_ELICITATION_REQUIRED:  # the pages were not visited (or asked for again and again)
            return self._redacted(required_text(self.name, what, getattr(error, "data", None)))
        if code == _CONNECTION_CLOSED:
            if self.state is not ServerState.FAILED:
                self._fail(f"MCP server {self.name!r} stopped unexpectedly; it will be restarted on next use"
                           f"{self._where_to_look()}")
            self._stop.set()
            return f"MCP server {self.name!r} stopped during {what}; it will be restarted on next use"
        return self._redacted(f"MCP server {self.name!r} refused {what}: {error} (JSON-RPC error {code})")

    def _redacted(self, text: str) -> str:
        return redact(text, self._secrets)

    redacted = _redacted

    async def get_prompt(self, prompt_name: str, arguments: dict[str, str]) -> list[Message]:
        """A server prompt filled with `arguments`, as messages named `server/prompt`."""
        await self.ensure_running()
        client = self._client
        if client is None:
            raise MCPServerError(self.error or f"MCP server {self.name!r} is not running", server=self.name)
        from mcp.shared.exceptions import MCPError

        started = time.monotonic()
        self.in_flight += 1
        try:
            # Bounded by the client's read timeout (the server's `timeout`), like every request.
            result = await asyncio.wait_for(client.get_prompt(prompt_name, arguments), self.request_timeout)
        except TimeoutError:
            message = (f"MCP server {self.name!r} did not answer prompt {prompt_name!r} within "
                       f"{self.server.timeout:g} s (waited {time.monotonic() - started:.1f} s); the request was "
                       "abandoned")
            raise MCPServerError(message, server=self.name) from None
        except MCPError as error:
            message = self._request_failure(error, f"prompt {prompt_name!r}", started)
            raise MCPServerError(message, server=self.name) from None
        finally:
            self.in_flight -= 1
        return prompt_messages(result, f"{self.name}/{prompt_name}")


#: Said at once when a server is configured but the SDK is not importable (a broken or partial install).
MISSING_SDK = (
    "the MCP SDK is not installed — it is the Python package 'mcp', a dependency of Visindigo; reinstall "
    "Visindigo or run: pip install mcp"
)


def missing_sdk() -> bool:
    """Whether the `mcp` package cannot be imported; checked without importing it (startup stays cheap)."""
    import importlib.util

    try:
        return importlib.util.find_spec("mcp") is None
    except (ImportError, ValueError):
        return True
