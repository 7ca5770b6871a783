"""The main screen's own modals and what it does with their answers: rename, delete, a link to open; and how its
flows report a refusal or a failure. (The feature packages' screens it opens are `launchers.FeatureScreens`.)

Each is a coroutine run in a worker of the main screen (a modal is waited for with `push_screen_wait`), given
exactly what it works on. Each screen is imported when first opened, so start-up does not load them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, cast

from textual.app import App
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from visindigo.engine import Dialog
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import Refused, Workbench

F = TypeVar("F", bound=Callable[..., Any])


def tell_refusals(method: F) -> F:
    """A method of a widget (sync or async) whose `Refused` becomes a notice to the user instead of an error."""

    def tell(node: Widget, refused: Refused) -> None:
        node.notify(str(refused), severity=refused.severity)

    if inspect.iscoroutinefunction(method):

        @functools.wraps(method)
        async def told_async(node: Widget, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(node, *args, **kwargs)
            except Refused as refused:
                tell(node, refused)

        return cast(F, told_async)

    @functools.wraps(method)
    def told(node: Widget, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(node, *args, **kwargs)
        except Refused as refused:
            tell(node, refused)

    return cast(F, told)


async def rename(app: App[Any], workbench: Workbench) -> None:
    from visindigo.tui.main.rename import RenameScreen

    dialog = workbench.shown
    if not workbench.is_registered(dialog):
        app.notify("Send a message first; a new dialog is named after it.", severity="warning")
        return
    title = await app.push_screen_wait(RenameScreen(dialog.title))
    if title is not None:
        workbench.rename(dialog, title)


async def confirm_delete(app: App[Any], workbench: Workbench, dialog_id: str) -> Dialog | None:
    """Ask, then delete; the dialog's branches move up to its parent, so none is lost. Returns the dialog to
    show instead when the deleted one was shown."""
    from visindigo.tui.common.confirm import ConfirmScreen

    plan = workbench.delete_plan(dialog_id)
    title = clean_line(plan.title) or "New dialog"
    body = f"Delete “{title}” and its {plan.message_count} messages?"
    if plan.branch_count:
        body += f"\nIts {plan.branch_count} branch(es) stay and move up one level."
    if not await app.push_screen_wait(ConfirmScreen("Delete dialog", body, "Delete", danger=True)):
        return None
    target = workbench.delete(dialog_id)
    app.notify(f"Deleted “{title}”.", markup=False)
    return target


async def confirm_link(app: App[Any], href: str) -> None:
    """Links in model text never open by themselves (Markdown(open_links=False)): ask first."""
    from visindigo.tui.common.confirm import ConfirmScreen
    from visindigo.tui.common.sanitize import clean

    href = clean(href)
    if await app.push_screen_wait(
        ConfirmScreen("Open link?", f"The model's text links to:\n\n{href}\n\nOpen it in your browser?", "Open")
    ):
        app.open_url(href)


def report_failure(node: Widget, event: Worker.StateChanged) -> None:
    """A worker that failed (a screen that could not open, a bug) is reported, never silently dropped.

    Run workers report their own failures (`RunEnded`); this catches everything else.
    """
    if event.state is WorkerState.ERROR:
        from visindigo.tui.common.sanitize import clean

        error = event.worker.error
        node.notify(
            clean(f"{event.worker.name or 'a task'} failed: {type(error).__name__}: {error}"),
            severity="error",
            markup=False,
        )
