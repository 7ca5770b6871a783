"""The dialog store: SQLite (WAL) in the data directory, one row per dialog and per message.

`Store.open(paths)` opens it (taking the data directory's lock); `Center.open()` is the usual way in.
"""

from .errors import StoreError, StoreLocked
from .store import Store
from .tracker import CHECKPOINT_INTERVAL, DialogTracker

__all__ = ["CHECKPOINT_INTERVAL", "DialogTracker", "Store", "StoreError", "StoreLocked"]
