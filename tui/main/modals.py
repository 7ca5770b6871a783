"""The screens the main screen opens over itself, and what it does with their answers: model picker, providers,
MCP servers, skills, templates, the dialog's parameters, rename, delete, a link to open, a tool call to approve.

Each is a coroutine run in a worker of the main screen (a modal is waited for with `push_screen_wait`), given
exactly what it works on. Each screen is imported when first opened, so start-up does not load them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from textual.app import App
from textual.widget import Widget
from textual.worker import Worker, WorkerState

from visindigo.engine import Center, Dialog, Message
from visindigo.tui.common.sanitize import clean_line
from visindigo.tui.workbench import Refused, Workbench

if TYPE_CHECKING:
    from visindigo.engine.templates.library import TemplateLibrary


F = TypeVar("F", bound=Callable[..., Any])


def tell_refusals(method: F) -> F:
    """A method of a widget (sync or async) whose `Refused` becomes a notice to the user instead of an error."""

    def tell(node: Widget, refused: Refused) -> None:
        node.notify(str(refused), severity=refused.severity)  # type: ignore[arg-type]

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


class AppServices(Protocol):
    """What the main screen needs from the application beyond Textual's `App` (the app passes itself; typed
    here so that no screen imports the app)."""

    async def main_screen_ready(self, screen: Any) -> None:
        """The main screen is mounted and shows its first dialog (seed the demo, offer first-run setup)."""
        ...

    def install_tool_source(self) -> None: ...

    def template_library(self) -> TemplateLibrary: ...

    def template_files_word(self) -> str: ...


async def pick_model(app: App[Any], workbench: Workbench) -> str:
    """Choose the shown dialog's model; returns "compare" when the user asked to compare several instead."""
    from visindigo.tui.setup.model_picker import COMPARE, ModelPickerScreen

    center = workbench.center
    if not center.providers:
        app.notify("No provider is configured yet: f3 opens the providers.", severity="warning")
        return ""
    dialog = workbench.shown
    picked = await app.push_screen_wait(
        ModelPickerScreen(center, dialog.provider_id, dialog.model_id, required=dialog.capability_requirement)
    )
    if picked is None:
        return ""
    if picked == COMPARE:
        return "compare"
    provider_id, model_id = picked
    workbench.set_model(dialog, provider_id, model_id)
    app.notify(f"This dialog now uses {model_id} ({provider_id}).", markup=False)
    return ""


async def manage_providers(app: App[Any], center: Center) -> None:
    from visindigo.tui.setup.providers import ProvidersScreen

    await app.push_screen_wait(ProvidersScreen(center, center.paths))


async def manage_mcp_servers(app: App[Any], services: AppServices, center: Center) -> None:
    from visindigo.tui.mcp.servers import MCPServersScreen

    services.install_tool_source()  # servers added here must have a manager to run them
    await app.push_screen_wait(MCPServersScreen(center))


async def manage_skills(app: App[Any], center: Center, dialog: Dialog) -> None:
    from visindigo.tui.setup.skills import SkillsScreen

    # A dialog not sent yet keeps its skills and is saved with them by its first message.
    await app.push_screen_wait(SkillsScreen(center, dialog))


async def manage_package_tools(app: App[Any], center: Center, dialog: Dialog) -> None:
    from visindigo.tui.setup.package_tools import PackageToolsScreen

    await app.push_screen_wait(PackageToolsScreen(center, dialog))


async def choose_template(app: App[Any], services: AppServices, dialog: Dialog) -> tuple[list[Message], bool] | None:
    """The filled template's messages and whether to send them at once (None: the user gave up)."""
    from visindigo.tui.templates.library import TemplateLibraryScreen

    library, words = services.template_library(), services.template_files_word()
    result = await app.push_screen_wait(TemplateLibraryScreen(library, dialog, files_word=words))
    if result is None:
        return None
    return list(getattr(result, "messages", ()) or (result.message,)), bool(result.send)


async def edit_parameters(app: App[Any], dialog: Dialog) -> bool:
    """The dialog's generation parameters in a form; True when the user changed them."""
    from visindigo.engine.providers.capabilities import forced_choice_note
    from visindigo.tui.setup.parameters import ParametersScreen

    tools = [function.id for function in dialog.effective_functions()]
    center = dialog.center
    provider = None
    if center is not None:
        provider = center.get_provider(dialog.provider_id) if dialog.provider_id else center.default_provider
    note = forced_choice_note(provider) if tools else ""
    screen = ParametersScreen(dialog.parameters, tools, title=dialog.title, tool_choice_note=note)
    chosen = await app.push_screen_wait(screen)
    if chosen is None:
        return False
    dialog.parameters = chosen  # stored with the dialog (a dialog not sent yet keeps them for its first run)
    return True


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
