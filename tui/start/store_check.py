"""The integrity check of a big store, run after start-up, and the repair of a damaged one behind a screen.

A store over 32 MB is not checked at open (on a store of thousands of dialogs the check would slow every start
noticeably; `bench/store_integrity.py` measures it), so the app checks it in a worker thread once the first
frame is up. When that finds damage the store is salvaged in the same thread, which takes a long while on a big
store: a modal screen says how far it is, instead of an app that seems frozen, and keeps the user from starting
anything that would wait on the store meanwhile. Damage met
by one of the app's own queries (listing, opening, renaming) goes the same way (`Store.repair_elsewhere`): the
repair runs in a worker behind the same screen, and the query that met it is told the store is being repaired.
The screen itself is `start.store_repair`, loaded when first shown.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from visindigo.engine import Center
    from visindigo.tui.start.store_repair import StoreRepairScreen


#: Seconds after start-up before the check begins.
CHECK_AFTER = 1.0


class StoreWatch:
    """The app's watch over its store: `start()` once the app is mounted; the worker's news comes back to the
    app's thread as callbacks in its queue (`call_later` posts from any thread without waiting for the app).

    `dialogs_changed` is called after a repair that found damage: the new store may hold fewer dialogs (or
    "Recovered messages"), so the tree is rebuilt.
    """

    def __init__(self, app: App[Any], center: Center, dialogs_changed: Callable[[], None]) -> None:
        self.app = app
        self.center = center
        self.dialogs_changed = dialogs_changed
        self._repair_screen: StoreRepairScreen | None = None
        #: The app's own thread (where `start` runs): the store's callbacks come from any thread.
        self._app_thread: int | None = None
        #: A repair asked for by `_repair_elsewhere` is running in a worker.
        self._repair_running = False

    def start(self) -> None:
        store = self.center.store
        if store is None or store.read_only:
            return
        self._app_thread = threading.get_ident()
        store.on_salvage = self._salvage_progress
        store.repair_elsewhere = self._repair_elsewhere
        if store.checked_at_open:
            return
        # After the first frame and the tree: the copy's Python loop would share the interpreter with them.
        self.app.set_timer(CHECK_AFTER, self._start_check)

    def _repair_elsewhere(self, error: Exception, seen: int) -> bool:
        """Damage met by a query: on the app's thread, repair in a worker (True); a worker repairs it itself."""
        if threading.get_ident() != self._app_thread:
            return False  # a worker thread may wait for the repair: nothing is drawn from there
        if not self._repair_running:
            self._repair_running = True
            self._show_repair_screen()
            self.app.run_worker(lambda: self._repair_store(error, seen), thread=True, group="store-repair",
                                exit_on_error=False)  # fmt: skip
        return True

    def _repair_store(self, error: Exception, seen: int) -> None:
        store = self.center.store
        try:
            if store is not None:
                store.repair_after(error, seen)
        finally:
            self.app.call_later(self._checked, str(error), repaired_elsewhere=True)

    def _show_repair_screen(self) -> StoreRepairScreen:
        if self._repair_screen is None:
            from visindigo.tui.start.store_repair import StoreRepairScreen  # loaded at start, the screen rarely

            self._repair_screen = StoreRepairScreen()
            self.app.push_screen(self._repair_screen)
        return self._repair_screen

    def _start_check(self) -> None:
        self.app.run_worker(self._check_store, thread=True, group="store-check", exit_on_error=False)

    def _check_store(self) -> None:
        store = self.center.store
        problem: str | None = None
        try:  # a repair that cannot be made (no room for the copy) is told through the store's on_error
            if store is not None:
                problem = store.verify()
        finally:
            self.app.call_later(self._checked, problem)

    def _salvage_progress(self, stage: str, done: int, total: int) -> None:
        if threading.get_ident() == self._app_thread:
            return  # a salvage in the app's own thread (before `repair_elsewhere` is set): nothing is drawn meanwhile
        self.app.call_later(self._progressed, stage, done, total)

    def _progressed(self, stage: str, done: int, total: int) -> None:
        screen = self._show_repair_screen()
        if screen.is_mounted:
            screen.show(stage, done, total)

    def _checked(self, problem: str | None, *, repaired_elsewhere: bool = False) -> None:
        """The background check (or a query's repair) is over; `problem` is what it found, or None."""
        if repaired_elsewhere:
            self._repair_running = False
        screen, self._repair_screen = self._repair_screen, None
        if self._repair_running:  # the check after start-up ended while a query's repair goes on: its screen stays
            self._repair_screen = screen
        elif screen is not None and screen in self.app.screen_stack:
            screen.pop_until_active()  # whatever was opened over it goes too
            screen.dismiss()
        if problem is not None:
            self.dialogs_changed()
