"""The plain mode's working state: the app's workbench over the same Center, with runs as asyncio tasks.

Everything the app does with a dialog — send, regenerate, edit, step between branches, fill a template — is the
workbench's (`tui.workbench`, plain Python), so the plain mode makes the same branches and saves the same
dialogs. What differs is only how the user is asked and told: questions are lines read by the main thread
(`console`), and runs are written as lines (`run_lines`). One run at a time: the prompt comes back when the
answer is complete, and ctrl+c cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from visindigo.engine import Center, Dialog, Message
from visindigo.engine.approval import Approval, ToolCallRequest
from visindigo.plain.listing import Row, call_line, message_lines, quoted
from visindigo.plain.output import Output
from visindigo.plain.run_lines import RunPrinter, model_name
from visindigo.tui.workbench import Refused, Workbench

if TYPE_CHECKING:
    from tempfile import TemporaryDirectory

    from visindigo.engine.attachments import Attachment
    from visindigo.engine.templates.library import TemplateLibrary

log = logging.getLogger(__name__)

Ask = Callable[..., Awaitable[str | None]]
"""`ask(prompt, *, prefill="", message=False)`: a line read by the main thread, None when the user gave up."""

YES = frozenset({"y", "yes"})
NO = frozenset({"n", "no"})
ALWAYS = frozenset({"a", "always"})


@dataclass(frozen=True, slots=True)
class PlainOptions:
    """What the command line chose for this run."""

    demo: bool = False
    provider: str = ""
    model: str = ""
    colour: bool = False
    #: Seconds between the demo model's streamed pieces.
    demo_delay: float = 0.02


class PlainSession:
    """The workbench, its runs, and the lists whose numbers the commands take."""

    def __init__(self, center: Center, out: Output, ask: Ask, options: PlainOptions | None = None) -> None:
        self.center = center
        self.out = out
        self._ask = ask
        self.options = options or PlainOptions()
        self.workbench = Workbench(center, host=self)
        self.printer = RunPrinter(self.workbench, out)
        self.workbench.subscribe(self.printer.heard)
        self.quitting = False
        #: The last numbered lists shown, by what they list ("dialogs", "branches", "models", "templates").
        self.lists: dict[str, list[Row]] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        #: Work that goes on beside the conversation (MCP servers starting).
        self._background: list[asyncio.Task[Any]] = []
        #: The command being carried out (ctrl+c stops it when no run is going).
        self.current: asyncio.Task[Any] | None = None
        #: Files attached with /attach, going with the next message.
        self.attachments: list[Attachment] = []
        #: Whether tab completes (readline reads the lines; not under TERM=dumb or from a pipe), for /help.
        self.tab_completes = False
        self._library: TemplateLibrary | None = None
        self._template_folder: TemporaryDirectory[str] | None = None

    @property
    def dialog(self) -> Dialog:
        return self.workbench.shown

    # --- the workbench's run host -----------------------------------------------------------------------------

    def start(self, run: Coroutine[Any, Any, None], *, name: str, group: str) -> None:
        self._tasks[group] = asyncio.get_running_loop().create_task(run, name=name)

    def cancel(self, group: str) -> None:
        task = self._tasks.get(group)
        if task is not None:
            task.cancel()

    async def approve(self, request: ToolCallRequest) -> Approval:
        """The tool approval as one question: yes (once), no, or always (for this dialog)."""
        hints = f" (the tool says it is {', '.join(request.hints)})" if request.hints else ""
        question = f"Allow the tool call {call_line(request.function_name or request.function_id, request.arguments)}"
        self.out.line(question + hints + "?", kind="tool")
        while True:
            answer = await self.ask("Answer yes, no or always (always: for this dialog): ")
            word = (answer or "").strip().lower()
            if answer is None or word in NO:
                self.out.line("Denied; the model is told so.", kind="status")
                return Approval.DENY
            if word in YES:
                self.out.line("Allowed once.", kind="status")
                return Approval.ALLOW_ONCE
            if word in ALWAYS:
                self.out.line("Allowed for this dialog.", kind="status")
                return Approval.ALLOW_FOR_DIALOG

    # --- asking and waiting -----------------------------------------------------------------------------------

    async def ask(self, prompt: str, *, prefill: str = "", message: bool = False) -> str | None:
        self.out.end()
        return await self._ask(prompt, prefill=prefill, message=message)

    async def wait_for_runs(self) -> None:
        """Until every run started has ended (the prompt comes back after the answer)."""
        while running := [task for task in self._tasks.values() if not task.done()]:
            await asyncio.gather(*running, return_exceptions=True)

    def interrupt(self) -> None:
        """ctrl+c: cancel the shown dialog's run (its partial answer is kept), else stop the command."""
        if self.workbench.cancel_run(self.dialog.id):
            self.out.line("Cancelling…", kind="status")
            return
        if self.current is not None and not self.current.done():
            self.current.cancel()

    # --- starting and leaving ---------------------------------------------------------------------------------

    async def begin(self) -> None:
        """Open what the app would open first, and say where the user is."""
        self.out.line("Visindigo, plain mode. /help lists the commands; ctrl+c stops an answer; ctrl+d leaves.")
        for notice in self.center.notices:
            self.out.line(notice, label="Note:", kind="status")
        if self.center.mcp_servers:
            self._install_tool_source()
        if self.options.demo:
            await self._begin_demo()
            return
        if not self.center.providers:
            self.out.line(
                "No provider is configured yet: `visindigo config edit` adds one, and `visindigo chat --plain "
                "--demo` tries Visindigo on its demo model.",
                label="Note:",
                kind="problem",
            )
        dialog = Dialog(self.center)
        if self.options.provider:
            if self.center.get_provider(self.options.provider) is None:
                known = ", ".join(p.id for p in self.center.providers) or "none configured"
                self.out.line(f"--provider {quoted(self.options.provider)} is not configured (known: {known}).")
            else:
                dialog.provider_id = self.options.provider
        if self.options.model:
            dialog.model_id = self.options.model
        last = None if self.options.provider or self.options.model else self._last_dialog()
        self.workbench.refresh_tree()
        if last is not None:
            self.show(last)
            count = last.message_count
            self.out.line(
                f"Continuing {quoted(last.title or 'the last dialog')}, {count} message{'' if count == 1 else 's'}: "
                "/history reads it, /new starts a new dialog."
            )
        else:
            self.show(dialog)
            self.out.line("A new dialog.")
        self.out.line(f"Model: {model_name(self.workbench, self.dialog)}.")

    async def _begin_demo(self) -> None:
        from visindigo.tui.start.demo import install_demo

        seeded = await install_demo(self.center, delay=self.options.demo_delay)
        self.workbench.refresh_tree()
        self.show(seeded if seeded is not None else Dialog(self.center))
        self.out.line("The demo: its model and its dialogs live in memory; nothing is saved.")
        if seeded is not None:
            self.out.line(f"Opened {quoted(seeded.title)}: /history reads it, /branches lists its alternatives.")
        self.out.line(f"Model: {model_name(self.workbench, self.dialog)}.")

    def _last_dialog(self) -> Dialog | None:
        """The dialog changed last (the app starts there too); None when there is none or it cannot be read."""
        from visindigo.engine.storage.errors import StoreError

        try:
            summaries = self.center.dialog_summaries()
            if not summaries:
                return None
            newest = max(summaries, key=lambda s: (s.updated_at, s.created_at))
            return self.center.get_dialog(newest.id)
        except (StoreError, Refused):
            return None
        except Exception:  # a damaged row must not stop the start
            log.exception("opening the last dialog failed")
            return None

    def _install_tool_source(self) -> None:
        """The MCP manager the run loop asks for tools (as the app makes it); servers marked to start now start."""
        if self.center.tool_source is not None:
            return
        from visindigo.engine.mcp import MCPManager

        paths = self.center.paths
        log_dir = paths.data_dir / "logs" if paths is not None else None
        credentials = paths.credentials_file if paths is not None else None
        manager = MCPManager(log_dir, center=self.center, credentials_file=credentials)
        self.center.tool_source = manager
        servers = [s for s in self.center.mcp_servers if s.enabled and s.start_on_launch]
        if servers:
            self._background.append(asyncio.get_running_loop().create_task(manager.start_on_launch(servers)))

    async def close(self) -> None:
        """Cancel what still runs (partial answers are kept), close servers, clients and the store."""
        tasks = [*self._tasks.values(), *self._background]
        for task in tasks:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await asyncio.wait_for(self.center.aclose(), timeout=5)
        except Exception:  # leaving must never fail
            log.exception("closing the Center failed")
        self.remove_temporary_files()

    def remove_temporary_files(self) -> None:
        folder, self._template_folder = self._template_folder, None
        if folder is not None:
            try:
                folder.cleanup()
            except OSError:
                log.warning("could not remove the temporary folder %s", folder.name)

    # --- the shown dialog -------------------------------------------------------------------------------------

    def show(self, dialog: Dialog) -> None:
        self.workbench.show(dialog)

    def read_out(self, dialog: Dialog, first: int = 0) -> None:
        """The dialog's messages from number `first + 1`, as the history reads them."""
        if not dialog.message_count:
            self.out.line("No messages yet.")
            return
        for index in range(first, dialog.message_count):
            for label, text in message_lines(index + 1, dialog.message_at(index)):
                self.out.line(text, label=label)

    async def send(self, message: str | Message) -> None:
        self.workbench.send(message)

    async def run_branch(self, branch: Dialog) -> None:
        """Show a branch made to answer again and run it."""
        self.show(branch)
        self.workbench.start_run(branch)

    # --- templates ----------------------------------------------------------------------------------------------

    def template_library(self) -> TemplateLibrary:
        """The config's template folder (the app's), or for the demo a temporary one with the sample template."""
        if self._library is None:
            from visindigo.engine.templates.library import TemplateLibrary

            folder = ""
            if not self.options.demo:
                folder = str(self.center.settings.get("prompt_dir") or "")
                if not folder and self.center.paths is not None:
                    folder = str(self.center.paths.prompt_dir)
            if not folder:
                import tempfile
                from pathlib import Path

                self._template_folder = tempfile.TemporaryDirectory(prefix="visindigo-templates-")
                folder = self._template_folder.name
                if self.options.demo:
                    from visindigo.tui.start.demo import write_sample_templates

                    write_sample_templates(Path(folder))
            self._library = TemplateLibrary(folder)
        return self._library
