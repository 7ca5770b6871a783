"""The dialog store: SQLite (WAL) in the data directory, one row per dialog and per message.

`Store.open(paths)` opens it (taking the data directory's lock); `Center.open()` is the usual way in.
`Store` and the tracker load on first use (PEP 562): `visindigo ask` imports the errors to catch them, and sends
its question before sqlite3 and the store are loaded.
"""

from typing import TYPE_CHECKING

from ..lazy_names import names_on_first_use
from .errors import StoreError, StoreLocked

if TYPE_CHECKING:
    from .store import Store
    from .tracker import CHECKPOINT_INTERVAL, DialogTracker

_LAZY = {"Store": "store", "CHECKPOINT_INTERVAL": "tracker", "DialogTracker": "tracker"}


__getattr__ = names_on_first_use(__name__, _LAZY)


__all__ = ["CHECKPOINT_INTERVAL", "DialogTracker", "Store", "StoreError", "StoreLocked"]
