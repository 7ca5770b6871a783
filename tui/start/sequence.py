"""The app's start, around its first frame: the first dialog (with --provider / --model), then, once the frame
is on the terminal, the last dialog opened again or the demo seeded and asked, first-run setup offered, what the
first reply needs loaded, and the garbage collector resumed.

Everything after the first frame waits two refreshes (the first lays the screen out, the second is the frame
on the terminal): a long dialog's answers take a while to render, and seeding the demo imports the provider
machinery and runs the demo model for two replies; the first frame should wait for neither.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from visindigo.engine import Center, Dialog, Message
from visindigo.tui.start.options import AppOptions

if TYPE_CHECKING:
    from textual.app import App

    from visindigo.tui.chat.composer import Composer
    from visindigo.tui.chat.status_line import StatusLine

log = logging.getLogger(__name__)


class StartScreen(Protocol):
    """What the start uses of the main screen (a protocol: `tui/start` does not import `tui/main`)."""

    composer: Composer
    status_line: StatusLine

    @property
    def dialog(self) -> Dialog: ...
    def refresh_tree(self, select_id: str = "") -> None: ...
    async def open_dialog(self, dialog: Dialog, *, focus_index: int | None = None) -> None: ...
    async def send(self, text: str | Message) -> None: ...


class StartUp:
    """One app's start. `offer_setup` opens first-run setup (nothing configured); `first_run_done` takes what
    the user chose there."""

    def __init__(self, app: App[Any], center: Center, options: AppOptions, offer_setup: Callable[[], None]) -> None:
        self.app = app
        self.center = center
        self.options = options
        self.offer_setup = offer_setup
        #: What to tell the user once the app is mounted (themes, --provider, the Center's own notices).
        self.notices: list[str] = list(center.notices)
        #: Open the last dialog once the first frame is up (no --provider / --model asked for a new one).
        self.resume_last = False
        #: The command line pauses the garbage collector for start-up; it resumes after the first frame.
        self.gc_paused = not gc.isenabled()
        #: `--demo` added its provider with the first dialog (seeded once the screen is up).
        self.demo_added = False

    def first_dialog(self) -> Dialog:
        """The first dialog, with --provider / --model applied to it; problems become notices.

        Without either, the last dialog is opened again just after the first frame (`resume_last_dialog`);
        with one, the new dialog gets it (for this run only).
        """
        provider_id, model_id = self.options.provider, self.options.model
        self.resume_last = not provider_id and not model_id
        if self.options.demo:  # the demo model is named in the first frame; its dialogs are seeded after it
            from visindigo.tui.start.demo import add_demo_provider

            self.demo_added = add_demo_provider(self.center, delay=self.options.demo_delay)
        dialog = Dialog(self.center)
        if provider_id:
            if self.center.get_provider(provider_id) is None:
                known = ", ".join(p.id for p in self.center.providers) or "none configured"
                self.notices.append(f"--provider {provider_id!r} is not configured (known: {known})")
            else:
                dialog.provider_id = provider_id
        if model_id:
            dialog.model_id = model_id
        return dialog

    def ready(self, screen: StartScreen) -> None:
        """The main screen is mounted: seed the demo, offer first-run setup, or open the last dialog."""
        after_frame = self.app.call_after_refresh
        if self.gc_paused:
            after_frame(self.resume_gc)
        if self.center.read_only:
            screen.status_line.note = "read-only"
            screen.status_line.refresh_now()
        if self.resume_last and not self.options.demo:
            after_frame(after_frame, self.resume_last_dialog, screen)
        if self.options.demo:
            after_frame(after_frame, self.start_demo, screen)
        elif not self.center.providers:
            after_frame(self.offer_setup)
        after_frame(after_frame, self.warm_up)

    def last_dialog(self) -> Dialog | None:
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

    async def resume_last_dialog(self, screen: StartScreen) -> None:
        """Open the dialog changed last, where the user left (after the first frame: see the module)."""
        if screen.dialog.message_count or screen.composer.text:
            return  # the user has started something new already
        last = self.last_dialog()
        if last is not None and last.id != screen.dialog.id:
            await screen.open_dialog(last)

    def start_demo(self, screen: StartScreen) -> None:
        """Seed the demo (`--demo`) once its provider, added with the first dialog, is named on screen."""
        if self.demo_added:
            self.app.call_after_refresh(self.seed_demo, screen)

    async def seed_demo(self, screen: StartScreen) -> None:
        """Seed the demo's dialogs, open the seeded branch and ask its live question."""
        from visindigo.tui.start.demo import LIVE_QUESTION, seed_demo

        seeded = await seed_demo(self.center)
        if not screen.dialog.message_count:
            screen.refresh_tree(seeded.id)
            await screen.open_dialog(seeded)
        else:
            screen.refresh_tree()  # the user started a dialog of their own already: the demo's waits in the tree
        if self.options.demo_live_question and screen.dialog is seeded:
            self.app.call_after_refresh(screen.send, LIVE_QUESTION)

    async def first_run_done(self, screen: StartScreen | None, choice: object) -> None:
        """First-run setup closed: the demo if chosen, else a word on how to add a provider later."""
        if screen is None:
            return
        if choice == "demo":
            from visindigo.tui.start.demo import install_demo

            dialog = await install_demo(self.center, delay=self.options.demo_delay)
            if dialog is not None:
                screen.refresh_tree(dialog.id)
                await screen.open_dialog(dialog)
        elif not self.center.providers:
            self.app.notify(
                "No provider yet: f3 adds one, and `visindigo --demo` tries the app without one.",
                severity="warning",
                timeout=15,
            )
        screen.refresh_tree()
        screen.status_line.refresh_now()

    def warm_up(self) -> None:
        """Import what the first reply needs in a thread after the first frame (see `warm_up`)."""
        from visindigo.tui.start.warm_up import warm_up

        kinds = [provider.kind for provider in self.center.providers] or ["openai"]
        self.app.run_worker(lambda: warm_up(kinds), thread=True, group="warm-up", exit_on_error=False)

    def resume_gc(self) -> None:
        """After the first frame: collect what start-up left, then keep the objects that live as long as the
        app (modules, classes, widgets) out of every later collection, which keeps those short."""
        self.gc_paused = False
        gc.collect()
        gc.freeze()
        gc.enable()
