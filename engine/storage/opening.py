"""`Center.open`: paths, store, config, in that order, gathered into one Center."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..config.apply import ConfigTarget, configured
from ..paths import ensure_dirs, resolve_paths
from .errors import StoreError
from .inbox import Inbox
from .salvage import SalvageProgress
from .store import Store

if TYPE_CHECKING:
    from ..paths import Paths


class OpenedCenter(ConfigTarget, Protocol):
    """What opening fills in: the Center (named here so this module need not import it)."""

    paths: Paths | None
    notices: list[str]

    def attach_store(self, store: Store) -> None: ...


C = TypeVar("C", bound=OpenedCenter)


def open_center(
    cls: type[C],
    home: str | os.PathLike[str] | None = None,
    *,
    config_path: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    read_only: bool = False,
    on_salvage: SalvageProgress | None = None,
) -> C:
    """A Center configured from the config file and backed by the store of the data directory.

    Config problems never stop it: they are in `center.notices`, with what the store reports (a file moved
    aside, replies recovered after a crash, an inbox file that could not be taken in). Raises `StoreLocked` /
    `StoreError` when the store is unusable.
    `read_only` reads the store beside the instance that holds its lock and writes nothing to it
    (`Center.read_only`); it needs a store that exists. `on_salvage` hears the progress of copying a damaged
    store (`Store.open`).
    """
    paths = resolve_paths(home, config_path=config_path, data_dir=data_dir)
    # The store first: a second instance refused by the lock says so in one sentence, without first reporting
    # every problem of a config file it will not use.
    store = open_store(paths, read_only=read_only, on_salvage=on_salvage)
    try:
        center = configured(cls, paths)
        center.attach_store(store)
    except BaseException:
        store.close()
        raise
    center.notices += store_notices(store, paths, read_only=read_only)
    return center


def open_store(paths: Paths, *, read_only: bool = False, on_salvage: SalvageProgress | None = None) -> Store:
    """The store of `paths` (its folders made first); raises `StoreLocked` / `StoreError` as `Store.open` does."""
    try:
        ensure_dirs(paths)
    except OSError as exc:
        raise StoreError(f"Cannot create Visindigo's folders: {exc}") from exc
    return Store.open_read_only(paths) if read_only else Store.open(paths, on_salvage=on_salvage)


def store_notices(store: Store, paths: Paths, *, read_only: bool) -> list[str]:
    """What the store reports at its opening; a writable store first takes in what `visindigo ask` left in its
    inbox while another instance held the store (`inbox`)."""
    notices = list(store.notices)
    if not read_only:
        notices += Inbox(paths.data_dir).take_into(store)[1]
    return notices
