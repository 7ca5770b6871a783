"""Where `visindigo ask` keeps its dialog: the app's store, by the store's rules for a second instance.

With the app closed, `ask` opens the store as the app does (taking its lock for the few seconds of the run), so
the dialog is written as it streams and the app lists it at its next start. With the app open, the store's lock
says another instance writes it: `ask` then reads it beside the app (`Center.read_only`, as a second browser tab
of `visindigo serve` does, seeing the dialogs waiting in the inbox too), answers, and writes the dialog whole
into the store's inbox (`engine.storage.inbox`) when the run ends; the app takes it in when it next lists its
dialogs. It never writes the store under a running app. `--no-save` reads the same way and writes nothing;
`--demo` uses the demo model in memory.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .ask_errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from visindigo.engine import Center, Dialog
    from visindigo.engine.storage.inbox import Inbox


def open_center(args: argparse.Namespace) -> tuple[Center, str]:
    """The Center to ask in, and "" when its dialogs are saved as they change, else the line to say on stderr:
    where they go instead (the inbox, see `inbox_keeper`)."""
    from visindigo.engine import Center
    from visindigo.engine.storage import StoreLocked

    config_path, data_dir = getattr(args, "config", None), getattr(args, "data_dir", None)
    if args.demo:
        return _demo_center(), ""  # the demo saves nothing, and says so itself: nothing to add
    if args.no_save:
        return _reading_center(config_path, data_dir), ""
    from .cli_progress import SalvageProgressLine

    progress = SalvageProgressLine()  # a damaged store is repaired at open, which can take a while
    try:
        return Center.open(config_path=config_path, data_dir=data_dir, on_salvage=progress), ""
    except StoreLocked as locked:
        holder = f" (process {locked.holder})" if locked.holder else ""
        center = _reading_center(config_path, data_dir)
        return center, (
            f"Visindigo{holder} is open on {locked.directory}: this dialog goes to its inbox, and the app takes "
            "it into its tree within a few seconds"
        )
    finally:
        progress.finish()


def _reading_center(config_path: object, data_dir: object) -> Center:
    """The configured Center reading the store without writing it; without a store, the config alone."""
    from visindigo.engine import Center
    from visindigo.engine.config.apply import configured
    from visindigo.engine.paths import DB_FILE_NAME, resolve_paths

    paths = resolve_paths(config_path=config_path, data_dir=data_dir)  # type: ignore[arg-type]
    if (paths.data_dir / DB_FILE_NAME).exists():
        return Center.open(config_path=config_path, data_dir=data_dir, read_only=True)  # type: ignore[arg-type]
    return configured(Center, paths)  # nothing stored yet: nothing to read, and nothing (no folder) is created


def config_center(args: argparse.Namespace) -> Center:
    """The configured Center without its store, for a new question: its first request needs the config alone,
    and leaves before the store is opened (`ask_early`); `attach_store` then opens it."""
    from visindigo.engine import Center
    from visindigo.engine.config.apply import configured
    from visindigo.engine.paths import resolve_paths

    paths = resolve_paths(config_path=getattr(args, "config", None), data_dir=getattr(args, "data_dir", None))
    return configured(Center, paths)


def attach_store(center: Center, args: argparse.Namespace) -> str:
    """Open the store of `config_center`'s Center as `open_center` would and attach it (its dialog is written
    then); "" or the line saying where the dialog goes instead, as `open_center` returns it. Raises `StoreError`.
    The store's notices are added to `center.notices`."""
    from visindigo.engine.storage import StoreLocked
    from visindigo.engine.storage.opening import open_store, store_notices

    paths = center.paths
    assert paths is not None
    if args.no_save:
        return ""  # a new dialog kept out of the store: nothing to read there, and nothing (no folder) is made
    from .cli_progress import SalvageProgressLine

    progress = SalvageProgressLine()  # a damaged store is repaired at open, which can take a while
    try:
        store = open_store(paths, on_salvage=progress)
    except StoreLocked as locked:  # another instance writes it: read it beside that one (as `open_center`)
        from visindigo.engine.paths import DB_FILE_NAME

        holder = f" (process {locked.holder})" if locked.holder else ""
        unsaved = (
            f"Visindigo{holder} is open on {locked.directory}: this dialog goes to its inbox, and the app takes "
            "it into its tree within a few seconds"
        )
        if not (paths.data_dir / DB_FILE_NAME).exists():
            return unsaved
        store = open_store(paths, read_only=True)
    else:
        unsaved = ""
    finally:
        progress.finish()
    center.attach_store(store)
    center.notices += store_notices(store, paths, read_only=store.read_only)
    return unsaved


def _demo_center() -> Center:
    from visindigo.engine import Center
    from visindigo.engine.providers.demo import demo_functions, demo_provider

    center = Center()
    center.add_provider(demo_provider(delay=0.0))
    center.add_functions(demo_functions())
    return center


def choose_dialog(center: Center, args: argparse.Namespace) -> Dialog | None:
    """The dialog named by --dialog, or the one changed last for --continue; None: ask in a new one."""
    if args.dialog is None and not args.continue_last:
        return None
    from .dialogs_cli import CommandError, find_dialog

    if args.dialog is not None:
        try:
            dialog_id = find_dialog(center, args.dialog)
        except CommandError as error:
            raise UsageError(str(error)) from None
    else:
        summaries = center.dialog_summaries()
        if not summaries:
            raise UsageError("there is no dialog to continue yet; ask without --continue to start one")
        dialog_id = max(summaries, key=lambda s: (s.updated_at, s.created_at)).id  # as the app picks its first
    dialog = center.get_dialog(dialog_id)
    if dialog is None:
        raise UsageError(f"the dialog {dialog_id[:8]} cannot be read from the store")
    return dialog


def inbox_keeper(center: Center, args: argparse.Namespace, dialog: Dialog) -> Callable[[Dialog], str] | None:
    """With the store held by a running app (and saving not turned off): what writes the dialog asked in to the
    store's inbox once the run is over, returning "" or the line that says why it could not. None otherwise.

    `dialog` is the one chosen to ask in, before its question: a continued dialog records what it started from,
    so the app that takes it in knows whether the dialog changed there meanwhile (`Inbox.take_into`)."""
    if args.demo or args.no_save or not center.read_only or center.paths is None:
        return None
    from visindigo.engine.storage.inbox import Inbox, base_of

    inbox = Inbox(center.paths.data_dir)
    base = base_of(center.store, dialog, inbox) if center.store is not None else None
    started_from = dialog.id

    def keep(asked_in: Dialog) -> str:
        return _put(inbox, asked_in, base if asked_in.id == started_from else None)

    return keep


def _put(inbox: Inbox, dialog: Dialog, base: dict[str, object] | None) -> str:
    try:
        inbox.put(dialog, base)
    except OSError as error:
        return f"the dialog could not be written to the inbox {inbox.folder}: {error.strerror or error}"
    return ""
