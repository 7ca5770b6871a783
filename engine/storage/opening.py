"""`Center.open`: paths, store, config, in that order, gathered into one Center."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol, TypeVar

from ..config import apply_config, load_config
from ..config.apply import ConfigTarget
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
    try:
        ensure_dirs(paths)
    except OSError as exc:
        raise StoreError(f"Cannot create Visindigo's folders: {exc}") from exc
    # The store first: a second instance refused by the lock says so in one sentence, without first reporting
    # every problem of a config file it will not use.
    store = Store.open_read_only(paths) if read_only else Store.open(paths, on_salvage=on_salvage)
    try:
        config, problems = load_config(paths)
        center = cls()
        center.paths = paths
        apply_config(center, config)
        center.attach_store(store)
    except BaseException:
        store.close()
        raise
    center.notices = [str(problem) for problem in problems] + list(store.notices)
    if not read_only:  # what `visindigo ask` left while another instance held the store (`inbox`)
        center.notices += Inbox(paths.data_dir).take_into(store)[1]
    return center
