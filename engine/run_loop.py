"""Dialog.run(): placeholder until the providers land (issue 3)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from .approval import ApprovalCallback
from .events import Event, RunFailed

if TYPE_CHECKING:
    from .dialog import Dialog

__all__ = ["ApprovalCallback", "run_dialog"]


async def run_dialog(dialog: Dialog, *, approve: ApprovalCallback | None = None) -> AsyncIterator[Event]:
    event = RunFailed("no provider adapters are installed yet")
    dialog._emit(event)
    yield event
