"""One tool call with progress: a token is sent, progress reaches the dialog, and progress keeps it alive.

The plain `timeout` of a server bounds how long a call may go *without news*: every progress notification
restarts that clock, and so does a person answering the server's question (elicitation, sampling approval),
so a long job that reports progress is not cut off, while a silent one still is. The call is abandoned by
cancelling its task, which makes the SDK send `notifications/cancelled` — the same path as esc.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..events import ToolCallProgress
from ..tool_context import ToolCallContext

if TYPE_CHECKING:
    from mcp.client import Client

log = logging.getLogger(__name__)

#: Passed to the SDK as the per-request limit: the clock here does the timing.
_NO_SDK_LIMIT = 1e9


class CallTimedOut(Exception):
    def __init__(self, silent_for: float) -> None:
        super().__init__(f"no answer and no progress for {silent_for:.1f} s")
        self.silent_for = silent_for


@dataclass
class ToolCallWatch:
    """The state of one call in flight: the last sign of life, and whether a person is being asked."""

    context: ToolCallContext | None
    last_news: float = field(default_factory=time.monotonic)
    waiting_on_user: int = 0
    progress_count: int = 0
    finished: bool = False
    late_progress: int = 0


async def call_with_progress(
    client: Client,
    tool_name: str,
    arguments: dict[str, Any],
    *,
    timeout: float | None,
    watch: ToolCallWatch,
) -> Any:
    """`client.call_tool` with a progress token; raises `CallTimedOut` after `timeout` s without news."""

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if watch.finished:  # a server reporting after its answer: ignored, noted in the log
            watch.late_progress += 1
            log.info("MCP tool %r reported progress after it finished; ignored", tool_name)
            return
        watch.last_news = time.monotonic()
        watch.progress_count += 1
        context = watch.context
        if context is not None:
            shown_total = total if total is not None and total > 0 else None
            context.dialog.emit(
                ToolCallProgress(context.call_id, context.function_id, float(progress), shown_total, message or "")
            )

    task = asyncio.ensure_future(
        client.call_tool(tool_name, arguments, read_timeout_seconds=_NO_SDK_LIMIT, progress_callback=on_progress)
    )
    try:
        while True:
            limit = None if timeout is None else max(0.01, watch.last_news + timeout - time.monotonic())
            done, _pending = await asyncio.wait({task}, timeout=limit)
            if done:
                return task.result()
            if watch.waiting_on_user:
                watch.last_news = time.monotonic()
                continue
            silent = time.monotonic() - watch.last_news
            if timeout is not None and silent >= timeout:
                raise CallTimedOut(silent)
    finally:
        watch.finished = True
        if not task.done():
            task.cancel()  # the SDK sends notifications/cancelled for the abandoned request
            await asyncio.wait({task}, timeout=5.0)
