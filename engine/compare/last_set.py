"""The last comparison set: the models a user compared last time, offered again by the model picker.

Kept in `compare.json` in the data folder (`{"last_set": [{"provider_id": .., "model_id": ..}, ...]}`), written
atomically; an unreadable file is ignored (the picker then starts with nothing chosen). A Center without a data
folder (the demo, tests) or one that only reads the store beside another instance keeps the set in memory.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import PRIVATE_FOLDER, write_text_atomic
from .comparison import MAX_MODELS, ModelChoice

if TYPE_CHECKING:
    from ..center import Center

log = logging.getLogger(__name__)

FILE_NAME = "compare.json"
_in_memory: weakref.WeakKeyDictionary[Center, list[ModelChoice]] = weakref.WeakKeyDictionary()


def _path(center: Center) -> Path | None:
    if center.paths is None or center.read_only:
        return None
    return center.paths.data_dir / FILE_NAME


def last_set(center: Center) -> list[ModelChoice]:
    """The set saved last (at most four models, in the order chosen); [] when there is none."""
    if center in _in_memory:
        return list(_in_memory[center])
    path = _path(center)
    if path is None:
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as error:
        log.warning("ignoring the last comparison set in %s: %s", path, error)
        return []
    items = data.get("last_set") if isinstance(data, dict) else None
    choices = [choice for choice in map(ModelChoice.from_json, items if isinstance(items, list) else []) if choice]
    return choices[:MAX_MODELS]


def remember_set(center: Center, choices: Sequence[ModelChoice]) -> None:
    """Save `choices` as the last set; a file that cannot be written keeps it for this session only."""
    chosen = list(choices)[:MAX_MODELS]
    path = _path(center)
    if path is not None:
        text = json.dumps({"last_set": [choice.to_json() for choice in chosen]}, ensure_ascii=False, indent=1)
        try:
            write_text_atomic(path, text + "\n", folder_mode=PRIVATE_FOLDER)
            _in_memory.pop(center, None)
            return
        except OSError as error:
            log.warning("could not save the last comparison set to %s: %s", path, error)
    _in_memory[center] = chosen
