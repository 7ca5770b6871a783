"""The Visindigo Textual application: themes, key overrides, the first screen, help and the palette.

The app is handed a ready `Center` (the CLI opens the store, a test builds one in memory) and never opens
files or sockets itself beyond what the Center and the screens it wires do.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from visindigo.engine import Center, Dialog
from visindigo.tui import platform
from visindigo.tui.common.sanitize import clean, clean_line, cut
from visindigo.tui.main.commands import MainCommands
from visindigo.tui.main.screen import MainScreen
from visindigo.tui.platform.crash import CrashLogging
from visindigo.tui.platform.output_stage import StagedDisplay
from visindigo.tui.platform.terminal_driver import LeavingOnSignals
from visindigo.tui.start.store_check import StoreChecking

if TYPE_CHECKING:
    from collections.abc import Iterable
    from tempfile import TemporaryDirectory

    from textual.driver import Driver
    from textual.theme import Theme

    from visindigo.engine.templates.library import TemplateLibrary

log = logging.getLogger(__name__)

#: Frames per second while a reply streams. Each redraw of a scrolling 120×40 pane costs ~30 KB, so this is
#: what sets the bandwidth an SSH link must carry; `--fps` (or `[ui] stream_fps`) lowers it for slow links.
DEFAULT_STREAM_FPS = 4.0
FPS_ENV = "VISINDIGO_STREAM_FPS"


@dataclass
class AppOptions:
    """What the command line chose for this run."""

    demo: bool = False
    provider: str = ""
    model: str = ""
    stream_fps: float | None = None
    #: Seconds between the demo model's streamed pieces (0: instant, for tests and snapshots).
    demo_delay: float = 0.02
    #: In demo mode, ask one question live after seeding, so the first thing seen is a streaming reply.
    demo_live_question: bool = True


def configured_fps(center: Center, options: AppOptions) -> float:
    """--fps, else $VISINDIGO_STREAM_FPS, else `[ui] stream_fps` in the config, else the default."""
    candidates: list[Any] = [options.stream_fps, os.environ.get(FPS_ENV)]
    if center.config is not None:
        ui = center.config.data.get("ui")
        if isinstance(ui, dict):
            candidates.append(ui.get("stream_fps"))
    for value in candidates:
        if value in (None, ""):
            continue
        try:
            fps = float(value)
        except (TypeError, ValueError):
            continue
        if 0.5 <= fps <= 60:
            return fps
    return DEFAULT_STREAM_FPS


def configured_cursor_blink(center: Center) -> bool:
    """`[ui] cursor_blink`, off unless chosen: a blinking cursor redraws its cell twice a second for as long as
    the app runs (~420 bytes/s over an SSH link while nothing else happens)."""
    if center.config is not None:
        ui = center.config.data.get("ui")
        if isinstance(ui, dict):
            return ui.get("cursor_blink") is True
    return False


#: The longest notice shown; a longer one (an error body, a huge title) is cut.
NOTICE_LIMIT = 2000


class VisindigoApp(CrashLogging, StagedDisplay, StoreChecking, LeavingOnSignals, App[None]):
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
        # palette, so ask for that palette; the theme picked below shows cursors by text style instead.
        super().__init__(ansi_color=True if "NO_COLOR" in os.environ else None)
        platform.install(self)  # the seam's shims, each checked against the installed Textual
        self.center = center
        self.options = options or AppOptions()
        self._library: TemplateLibrary | None = None
        self._template_folder: TemporaryDirectory[str] | None = None
        self._startup_notices: list[str] = list(center.notices)
        #: Open the last dialog once the first frame is up (no --provider / --model asked for a new one).
        self._resume_last = False
        #: The command line pauses the garbage collector for start-up; it resumes after the first frame.
        self._gc_paused = not gc.isenabled()
        self.cursor_blink = configured_cursor_blink(center)
        self._install_themes()
        keys = center.settings.get("keys")
        if isinstance(keys, dict) and keys:
            self.set_keymap({str(k): str(v) for k, v in keys.items()})

    # --- start-up --------------------------------------------------------------------------------------------

    def _install_themes(self) -> None:
        try:
            from visindigo.themes import DEFAULT_THEME, register_themes
        except ImportError:  # themes are optional decoration; the app works on Textual's own
            return
        user_dir = None
        if self.center.paths is not None:
            user_dir = self.center.paths.config_dir / "themes"
        self._startup_notices += [f"theme {p}" for p in register_themes(self, user_dir)]
        wanted = str(self.center.settings.get("theme") or getattr(DEFAULT_THEME, "name", DEFAULT_THEME))
        if self.no_color:
            wanted = "visindigo-no-color"
        if wanted in self.available_themes:
            self._start_in_theme(wanted)
        else:
            self._startup_notices.append(
                f"theme {wanted!r} is not installed; using {self.theme}. Installed: {', '.join(self.available_themes)}"
            )

    def _start_in_theme(self, name: str) -> None:
        """Start in the theme `name`, before the app runs (nothing is parsed or drawn yet).

        Assigning `self.theme` would run Textual's theme watcher, which re-parses every stylesheet once the first
        parse is done: ~5% of the time to the first frame, for CSS that never showed the old theme. What the
        watcher does besides is done here: the theme's CSS variables, its classes and the ANSI colour mapping.
        """
        self.set_reactive(App.theme, name)
        theme = self.current_theme
        self.stylesheet.set_variables(self.get_css_variables())
        self.set_class(True, f"-theme-{theme.name}", update=False)
        self.set_class(theme.dark, "-dark-mode", update=False)
        self.set_class(not theme.dark, "-light-mode", update=False)
        self._refresh_truecolor_filter(self.ansi_theme)

    def _last_dialog(self) -> Dialog | None:
        """The dialog changed last: the app starts where the user left (ctrl+n is one key away)."""
        from visindigo.engine.storage.errors import StoreError

        try:
            summaries = self.center.dialog_summaries()
        except StoreError:  # a damaged store, being repaired: begin with a new dialog
            return None
        if not summaries:
            return None
        newest = max(summaries, key=lambda s: (s.updated_at, s.created_at))
        try:
            return self.center.get_dialog(newest.id)
        except Exception:  # a damaged row must not stop the start: begin with a new dialog instead
            log.exception("opening the last dialog failed")
            return None

    def _apply_choices(self) -> Dialog:
        """The first dialog, with --provider / --model applied to it; problems become notices.

        Without either, the last dialog is opened again just after the first frame (`_resume_last_dialog`);
        with one, the new dialog gets it (for this run only).
        """
        provider_id, model_id = self.options.provider, self.options.model
        self._resume_last = not provider_id and not model_id
        dialog = Dialog(self.center)
        if provider_id:
            if self.center.get_provider(provider_id) is None:
                known = ", ".join(p.id for p in self.center.providers) or "none configured"
                self._startup_notices.append(f"--provider {provider_id!r} is not configured (known: {known})")
            else:
                dialog.provider_id = provider_id
        if model_id:
            dialog.model_id = model_id
        return dialog

    def _keep_theme(self, theme: Theme) -> None:
        """A theme picked in the palette is written to config.toml (`theme = ...`), so the next start uses it.

        Without a config (`--demo`, a Center made in code) it lasts for this run only: the demo writes nowhere.
        """
        if self.center.settings.get("theme") == theme.name:
            return
        self.center.settings["theme"] = theme.name
        if self.center.paths is None or self.options.demo:
            return
        from visindigo.engine import config as config_writer

        try:
            config_writer.set_theme(self.center.paths, theme.name)
        except (config_writer.ConfigError, OSError) as error:
            self.notify(f"The theme could not be kept for the next start: {error}", severity="warning", markup=False)

    def install_tool_source(self) -> None:
        """The MCP manager the run loop asks for tools; servers marked start_on_launch start now.

        Only made when MCP servers are configured (or the MCP screen is opened), so an app without servers
        does not load that machinery at start-up.
        """
        if self.center.tool_source is not None:
            return
        from visindigo.engine.mcp import MCPManager
        from visindigo.tui.mcp.host import AppHost

        log_dir = self.center.paths.data_dir / "logs" if self.center.paths is not None else None
        credentials = self.center.paths.credentials_file if self.center.paths is not None else None
        manager = MCPManager(log_dir, host=AppHost(self), center=self.center, credentials_file=credentials)
        self.center.tool_source = manager
        servers = [s for s in self.center.mcp_servers if s.enabled and s.start_on_launch]
        if servers:
            self.run_worker(manager.start_on_launch(servers), group="mcp-launch", exit_on_error=False)

    def get_default_screen(self) -> MainScreen:
        """The main screen is the first screen (no blank screen is drawn and replaced at start-up)."""
        fps = configured_fps(self.center, self.options)
        return MainScreen(self.center, stream_fps=fps, dialog=self._apply_choices(), services=self)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Every text field (the composer, the forms' inputs) blinks only when `[ui] cursor_blink` asks for it."""
        widget = event.widget
        # TextArea and Input both have the reactive; testing for it keeps Input's module out of start-up.
        if hasattr(type(widget), "cursor_blink") and getattr(widget, "cursor_blink", None) != self.cursor_blink:
            widget.cursor_blink = self.cursor_blink  # type: ignore[attr-defined]

    async def on_mount(self) -> None:
        # SIGTERM and SIGHUP end the app as ctrl+q does (Python's default for both is to die at once, without the
        # clean-up that removes the demo's temporary template folder or keeps a streaming reply).
        self.leave_on_signals()
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        if self.center.mcp_servers:
            self.install_tool_source()
        for notice in self._startup_notices:
            self.notify(notice, severity="warning", timeout=10, markup=False)
        if self.center.store is not None:
            self.center.store.on_error = self._store_problem
            self.start_store_check(self.center)  # a big store: its integrity check runs while the user works

    def _store_problem(self, message: str) -> None:
        """A store write failed or the store was repaired (possibly from a worker thread): tell the user."""
        self.notify(message, severity="error", timeout=20, markup=False)

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

    async def main_screen_ready(self, screen: MainScreen) -> None:
        """The main screen is mounted: seed the demo, offer first-run setup, or ask the demo's live question."""
        if self._gc_paused:
            self.call_after_refresh(self._resume_gc)
        if self.center.read_only:
            screen.status_line.note = "read-only"
            screen.status_line.refresh_now()
        if self._resume_last and not self.options.demo:
            # two refreshes: the first lays the screen out, the second is the frame on the terminal
            self.call_after_refresh(self.call_after_refresh, self._resume_last_dialog, screen)
        if self.options.demo:
            # after the first frame, as the last dialog is: seeding runs the demo model through the engine
            self.call_after_refresh(self.call_after_refresh, self._start_demo, screen)
        elif not self.center.providers:
            self.call_after_refresh(self.first_run)
        self.call_after_refresh(self.call_after_refresh, self._warm_up)

    async def _start_demo(self, screen: MainScreen) -> None:
        """Seed the demo's dialogs, open the seeded branch and ask its live question (`--demo`).

        Seeding is deferred past the first frame: it imports the provider machinery and runs the demo model
        for two replies, which made `--demo`'s first frame 2.5× a bare Textual app's instead of ~1.5×.
        """
        from visindigo.tui.start.demo import LIVE_QUESTION, install_demo

        seeded = await install_demo(self.center, delay=self.options.demo_delay)
        if seeded is not None and not screen.dialog.message_count:
            screen.refresh_tree(seeded.id)
            await screen.open_dialog(seeded)
        elif seeded is not None:
            screen.refresh_tree()  # the user started a dialog of their own already: the demo's waits in the tree
        if not self.center.providers:
            self.call_after_refresh(self.first_run)
        elif self.options.demo_live_question and seeded is not None and screen.dialog is seeded:
            self.call_after_refresh(screen.send, LIVE_QUESTION)

    def _warm_up(self) -> None:
        """Import what the first reply needs in a thread after the first frame (see `warm_up`)."""
        from visindigo.tui.start.warm_up import warm_up

        kinds = [provider.kind for provider in self.center.providers] or ["openai"]
        self.run_worker(lambda: warm_up(kinds), thread=True, group="warm-up", exit_on_error=False)

    async def _resume_last_dialog(self, screen: MainScreen) -> None:
        """Open the dialog changed last, where the user left. After the first frame: a long dialog's answers
        take a while to render, and the screen should not wait for them (measured: 1.45× a bare Textual app's
        start with this deferred, 4.25× without, on a loaded machine)."""
        if screen.dialog.message_count or screen.composer.text:
            return  # the user has started something new already
        last = self._last_dialog()
        if last is not None and last.id != screen.dialog.id:
            await screen.open_dialog(last)

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver, but on Linux and macOS one that notices when the terminal is gone (`terminal_driver`)."""
        from textual.drivers.linux_driver import LinuxDriver

        chosen = super().get_driver_class()
        if chosen is LinuxDriver:
            from visindigo.tui.platform.terminal_driver import SturdyLinuxDriver

            return SturdyLinuxDriver
        return chosen

    def _signalled(self, number: int) -> None:
        self.remove_temporary_files()  # first: after SIGHUP the terminal may be gone before the app has left
        for worker in list(self.workers):
            worker.cancel()
        self.exit(return_code=128 + number)

    def remove_temporary_files(self) -> None:
        """Remove the temporary template folder (`--demo`, or no config); every way out calls this."""
        folder, self._template_folder = self._template_folder, None
        if folder is not None:
            try:
                folder.cleanup()
            except OSError:
                log.warning("could not remove the temporary folder %s", folder.name)

    def _resume_gc(self) -> None:
        """After the first frame: collect what start-up left, then keep the objects that live as long as the
        app (modules, classes, widgets) out of every later collection, which keeps those short."""
        self._gc_paused = False
        gc.collect()
        gc.freeze()
        gc.enable()

    def first_run(self) -> None:
        """Nothing is configured: offer the providers found, a form, and the demo."""
        from visindigo.tui.setup.first_run import FirstRunScreen

        self.push_screen(FirstRunScreen(self.center), self._first_run_done)

    async def _first_run_done(self, choice: object) -> None:
        main = self.main_screen
        if main is None:
            return
        if choice == "demo":
            from visindigo.tui.start.demo import install_demo

            dialog = await install_demo(self.center, delay=self.options.demo_delay)
            if dialog is not None:
                main.refresh_tree(dialog.id)
                await main.open_dialog(dialog)
        elif not self.center.providers:
            self.notify(
                "No provider yet: f3 adds one, and `visindigo --demo` tries the app without one.",
                severity="warning",
                timeout=15,
            )
        main.refresh_tree()
        main.status_line.refresh_now()

    @property
    def main_screen(self) -> MainScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    # --- shared services for the screens ------------------------------------------------------------------------

    def template_library(self) -> TemplateLibrary:
        """The template folder of the config (created on first write), loaded once.

        Without a config (`--demo`, or a Center made in code) there is no folder of the user's to write to, so
        the library is a temporary folder removed when the app ends; the demo puts a sample template in it.
        """
        if self._library is None:
            from visindigo.engine.templates.library import TemplateLibrary

            folder = ""
            if not self.options.demo:
                folder = str(self.center.settings.get("prompt_dir") or "")
                if not folder and self.center.paths is not None:
                    folder = str(self.center.paths.prompt_dir)
            if not folder:
                import tempfile

                self._template_folder = tempfile.TemporaryDirectory(prefix="visindigo-templates-")
                folder = self._template_folder.name
                if self.options.demo:
                    from visindigo.tui.start.demo import write_sample_templates

                    write_sample_templates(Path(folder))
            self._library = TemplateLibrary(folder)
        return self._library

    def template_files_word(self) -> str:
        """What the template screen calls the folder's templates: the demo's is no library of the user's."""
        if self.options.demo:
            return "demo folder"
        if self._template_folder is not None:
            return "a temporary folder"
        return "your library"

    # --- help and palette -------------------------------------------------------------------------------------

    def action_help(self) -> None:
        from visindigo.tui.chat.vim import configured_keys
        from visindigo.tui.common.help import HelpScreen
        from visindigo.tui.main.key_help import help_sections
        from visindigo.tui.platform.crash import log_line

        keys = self.center.settings.get("keys")
        keymap = keys if isinstance(keys, dict) else None
        sections = help_sections(self, keymap, vim=configured_keys(self.center) == "vim")
        self.push_screen(HelpScreen(sections, keymap=keymap, footer=log_line(self.center.paths)))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Keys", "Every key of the app (f1)", self.action_help)

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
