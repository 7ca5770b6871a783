"""The Visindigo Textual application: it composes the parts and owns nothing else.

The app is handed a ready `Center` (the CLI opens the store, a test builds one in memory) and never opens
files or sockets itself beyond what the Center and the screens it wires do. What it composes: the seam's shims
(`platform.install`), the themes (`start.themes`), the start around the first frame (`start.sequence`), the
store's watch (`start.store_check`), the template folder (`start.template_folder`), the feature screens the
main screen opens (`tui.features`), and its own keys, notices, help and quitting.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from visindigo.engine import Center
from visindigo.tui import platform
from visindigo.tui.common.sanitize import clean, clean_line, cut
from visindigo.tui.features import Features
from visindigo.tui.main.keys import MainCommands
from visindigo.tui.main.screen import MainScreen
from visindigo.tui.platform import graphics
from visindigo.tui.platform.terminal_driver import LeavingOnSignals
from visindigo.tui.platform.themes import ReadableDim, with_readable_dim
from visindigo.tui.start.options import AppOptions, configured_cursor_blink, configured_fps, configured_images
from visindigo.tui.start.sequence import StartUp
from visindigo.tui.start.store_check import StoreWatch
from visindigo.tui.start.template_folder import TemplateFolder
from visindigo.tui.start.themes import install_themes, keep_theme

if TYPE_CHECKING:
    from textual.filter import LineFilter
    from textual.theme import Theme

    from visindigo.engine.templates.library import TemplateLibrary

__all__ = ["AppOptions", "VisindigoApp", "configured_cursor_blink", "configured_fps"]

log = logging.getLogger(__name__)

#: The longest notice shown; a longer one (an error body, a huge title) is cut.
NOTICE_LIMIT = 2000


class VisindigoApp(LeavingOnSignals, App[None]):
    """A keyboard-first LLM workstation. ctrl+p lists every command; f1 lists every key."""

    TITLE = "Visindigo"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {MainCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Keys", id="help"),
        Binding("ctrl+q", "quit", "Quit", id="quit", priority=True, show=False),
    ]

    def __init__(self, center: Center, options: AppOptions | None = None) -> None:
        # NO_COLOR (https://no-color.org): Textual drops every colour when the theme is on the terminal's own
        # palette, so ask for that palette; `start.themes` picks the theme that shows cursors by text style.
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        platform.install(self)  # the seam's shims, each checked against the installed Textual
        self.center = center
        self.options = options or AppOptions()
        self.templates = TemplateFolder(center, demo=self.options.demo)
        self.feature_screens = Features(center, self.templates, self.install_tool_source)
        self.start_up = StartUp(self, center, self.options, self.first_run)
        self.store_watch = StoreWatch(self, center, self._dialogs_changed)
        self.cursor_blink = configured_cursor_blink(center)
        graphics.install(self, configured_images(center))  # kitty graphics or half blocks for attached images
        self.readable_dim = ReadableDim()
        self.start_up.notices += install_themes(self, center)
        keys = center.settings.get("keys")
        if isinstance(keys, dict) and keys:
            self.set_keymap({str(k): str(v) for k, v in keys.items()})

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then dim hints at full strength on the terminal's palette (`platform.themes`)."""
        return with_readable_dim(super().get_line_filters(), self.readable_dim)

    def get_default_screen(self) -> MainScreen:
        """The main screen is the first screen (no blank screen is drawn and replaced at start-up)."""
        fps = configured_fps(self.center, self.options)
        return MainScreen(self.center, stream_fps=fps, dialog=self.start_up.first_dialog(), services=self)

    async def on_mount(self) -> None:
        # SIGTERM and SIGHUP end the app as ctrl+q does (Python's default for both is to die at once, without the
        # clean-up that removes the demo's temporary template folder or keeps a streaming reply).
        self.leave_on_signals()
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        if self.center.mcp_servers:
            self.install_tool_source()
        for notice in self.start_up.notices:
            self.notify(notice, severity="warning", timeout=10, markup=False)
        if self.center.store is not None:
            self.center.store.on_error = self._store_problem
            self.store_watch.start()  # a big store: its integrity check runs while the user works

    def _keep_theme(self, theme: Theme) -> None:
        keep_theme(self, self.center, theme, demo=self.options.demo)

    def _store_problem(self, message: str) -> None:
        """A store write failed or the store was repaired (possibly from a worker thread): tell the user."""
        self.notify(message, severity="error", timeout=20, markup=False)

    def _dialogs_changed(self) -> None:
        """The store was repaired: it may hold fewer dialogs (or "Recovered messages")."""
        if (main := self.main_screen) is not None:
            main.refresh_tree()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Every text field (the composer, the forms' inputs) blinks only when `[ui] cursor_blink` asks for it."""
        widget: Any = event.widget  # TextArea and Input both have the reactive; no common base declares it
        # testing the class for it keeps Input's module out of start-up
        if hasattr(type(widget), "cursor_blink") and widget.cursor_blink != self.cursor_blink:
            widget.cursor_blink = self.cursor_blink

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notice leaves for the terminal cleaned: notices quote titles, names and error texts from outside
        (a title carrying OSC 52 once wrote the clipboard through the "deleted" notice). Thread-safe, as Textual's.
        """
        super().notify(
            cut(clean(message), NOTICE_LIMIT),
            title=clean_line(title),
            severity=severity,
            timeout=timeout,
            markup=markup,
        )

    # --- what the main screen asks of the app (`main.launchers.AppServices`) -----------------------------------

    async def main_screen_ready(self, screen: MainScreen) -> None:
        """The main screen is mounted: seed the demo, offer first-run setup, or ask the demo's live question."""
        self.start_up.ready(screen)

    def install_tool_source(self) -> None:
        """The MCP manager the run loop asks for tools; servers marked start_on_launch start now.

        Only made when MCP servers are configured (or the MCP screen is opened), so an app without servers
        does not load that machinery at start-up.
        """
        if self.center.tool_source is not None:
            return
        from visindigo.engine.mcp import MCPManager
        from visindigo.tui.mcp.host import AppHost

        paths = self.center.paths
        log_dir = paths.data_dir / "logs" if paths is not None else None
        credentials = paths.credentials_file if paths is not None else None
        manager = MCPManager(log_dir, host=AppHost(self), center=self.center, credentials_file=credentials)
        self.center.tool_source = manager
        servers = [s for s in self.center.mcp_servers if s.enabled and s.start_on_launch]
        if servers:
            self.run_worker(manager.start_on_launch(servers), group="mcp-launch", exit_on_error=False)

    def template_library(self) -> TemplateLibrary:
        """The template folder of the config, or a temporary one (`start.template_folder`)."""
        return self.templates.library()

    @property
    def main_screen(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def first_run(self) -> None:
        """Nothing is configured: offer the providers found, a form, and the demo."""
        from visindigo.tui.setup.first_run import FirstRunScreen

        async def done(choice: object) -> None:
            await self.start_up.first_run_done(self.main_screen, choice)

        self.push_screen(FirstRunScreen(self.center), done)

    # --- help and palette -------------------------------------------------------------------------------------

    def action_help(self) -> None:
        from visindigo.tui.chat.vim import configured_keys
        from visindigo.tui.common.help import HelpScreen
        from visindigo.tui.main.key_help import help_sections
        from visindigo.tui.platform.crash import log_line

        keys = self.center.settings.get("keys")
        keymap = keys if isinstance(keys, dict) else None
        vim = configured_keys(self.center) == "vim"
        sections = help_sections(self, keymap, extra=self.feature_screens.help_sections(), vim=vim)
        self.push_screen(HelpScreen(sections, keymap=keymap, footer=log_line(self.center.paths)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Keys", "Every key of the app (f1)", self.action_help)

    # --- leaving ----------------------------------------------------------------------------------------------

    def remove_temporary_files(self) -> None:
        """Remove the temporary template folder (`--demo`, or no config); every way out calls this."""
        self.templates.remove()

    def last_save(self) -> Callable[[], None] | None:
        """What a crash would leave: each streaming reply's text as a checkpoint (the store's close)."""
        store = self.center.store
        return store.close if store is not None else None

    async def action_quit(self) -> None:
        """Cancel runs (their partial answers are kept), close servers and clients, then leave."""
        for worker in list(self.workers):
            worker.cancel()
        try:
            await asyncio.wait_for(self.center.aclose(), timeout=5)
        except Exception:  # leaving must never fail; the OS reclaims what is left
            log.exception("closing the Center failed")
        self.remove_temporary_files()
        self.exit()
