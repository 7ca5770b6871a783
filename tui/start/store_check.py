"""The integrity check of a big store, run after start-up, and the repair of a damaged one behind a screen.

A store over 32 MB is not checked at open (0.5 s on the 10,000-dialog store would slow every start), so the app
checks it in a worker thread once the first frame is up. When that finds damage the store is salvaged in the
same thread, which takes tens of seconds on a big store: a modal screen says how far it is, instead of an app
that seems frozen, and keeps the user from starting anything that would wait on the store meanwhile. Damage met
by one of the app's own queries (listing, opening, renaming) goes the same way (`Store.repair_elsewhere`): the
repair runs in a worker behind the same screen, and the query that met it is told the store is being repaired.
The screen itself is `screens.store_repair`, loaded when first shown.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from visindigo.engine import Center
    from visindigo.tui.start.store_repair import StoreRepairScreen


#: Seconds after start-up before the check begins.
CHECK_AFTER = 1.0


class SalvageProgressed(Message):
    """How far the salvage is (posted from the worker thread: posting does not wait for the app)."""

    def __init__(self, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.stage, self.done, self.total = stage, done, total


class StoreChecked(Message):
    """The background check is over; `problem` is what it found (the store was then repaired), or None."""

    def __init__(self, problem: str | None, *, repaired_elsewhere: bool = False) -> None:
        super().__init__()
        self.problem = problem
        #: The repair asked for by a query that met damage (not the check after start-up).
        self.repaired_elsewhere = repaired_elsewhere


class StoreChecking:
    """For `VisindigoApp` (its `self`; not imported here, which would be an import cycle): `start_store_check()`
    once mounted; the handlers below follow the worker."""

    _repair_screen: StoreRepairScreen | None = None
    #: The app's own thread (where `start_store_check` runs): the store's callbacks come from any thread.
    _app_thread: int | None = None
    #: A repair asked for by `_repair_elsewhere` is running in a worker.
    _repair_running: bool = False

    def start_store_check(self: Any, center: Center) -> None:
        store = center.store
        if store is None or store.read_only:
            return
        self._app_thread = threading.get_ident()
        store.on_salvage = self._salvage_progress
        store.repair_elsewhere = self._repair_elsewhere
        if store.checked_at_open:
            return
        # After the first frame and the tree: the copy's Python loop would share the interpreter with them.
        self.set_timer(CHECK_AFTER, self._start_check)

    def _repair_elsewhere(self: Any, error: Exception, seen: int) -> bool:
        """Damage met by a query: on the app's thread, repair in a worker (True); a worker repairs it itself."""
        if threading.get_ident() != self._app_thread:
            return False  # a worker thread may wait for the repair: nothing is drawn from there
        if not self._repair_running:
            self._repair_running = True
            self._show_repair_screen()
            self.run_worker(lambda: self._repair_store(error, seen), thread=True, group="store-repair",
                            exit_on_error=False)  # fmt: skip
        return True

    def _repair_store(self: Any, error: Exception, seen: int) -> None:
        store = self.center.store
        try:
            if store is not None:
                store.repair_after(error, seen)
        finally:
            self.post_message(StoreChecked(str(error), repaired_elsewhere=True))

    def _show_repair_screen(self: Any) -> None:
        if self._repair_screen is None:
            from visindigo.tui.start.store_repair import (
                StoreRepairScreen,  # the app's mixin loads at start, the screen rarely
            )

            self._repair_screen = StoreRepairScreen()
            self.push_screen(self._repair_screen)

    def _start_check(self: Any) -> None:
        self.run_worker(self._check_store, thread=True, group="store-check", exit_on_error=False)

    def _check_store(self: Any) -> None:
        store = self.center.store
        problem: str | None = None
        try:  # a repair that cannot be made (no room for the copy) is told through the store's on_error
            if store is not None:
                problem = store.verify()
        finally:
            self.post_message(StoreChecked(problem))

    def _salvage_progress(self: Any, stage: str, done: int, total: int) -> None:
        if threading.get_ident() == self._app_thread:
            return  # a salvage in the app's own thread (before `repair_elsewhere` is set): nothing is drawn meanwhile
        self.post_message(SalvageProgressed(stage, done, total))

    def on_salvage_progressed(self: Any, message: SalvageProgressed) -> None:
        self._show_repair_screen()
        if self._repair_screen.is_mounted:
            self._repair_screen.show(message.stage, message.done, message.total)

    def on_store_checked(self: Any, message: StoreChecked) -> None:
        if message.repaired_elsewhere:
            self._repair_running = False
        screen, self._repair_screen = self._repair_screen, None
        if self._repair_running:  # the check after start-up ended while a query's repair goes on: its screen stays
            self._repair_screen = screen
        elif screen is not None and screen in self.screen_stack:
            screen.pop_until_active()  # whatever was opened over it goes too
            screen.dismiss()
        if message.problem is None:
            return
        from visindigo.tui.main.screen import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.refresh_tree()  # the new store may hold fewer dialogs (or "Recovered messages")
