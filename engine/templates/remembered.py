"""The values a user last typed into each template's form, so the next use starts from them.

A small JSON object `{template key: {field: value}}`. A file that is not valid JSON is moved aside (to
`<name>.bad`) before anything new is written, so a damaged file is never silently overwritten.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path

from ..atomic import PRIVATE_FOLDER, write_text_atomic

log = logging.getLogger(__name__)


class RememberedValues:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._data: dict[str, dict[str, str]] | None = None

    def get(self, key: str) -> dict[str, str]:
        """The values saved for `key` (a copy), or an empty dict."""
        return dict(self._load().get(key, {}))

    def set(self, key: str, values: Mapping[str, str]) -> None:
        data = self._load()
        data[key] = {str(name): str(value) for name, value in values.items()}
        self._save(data)

    def _save(self, data: dict[str, dict[str, str]]) -> None:
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        write_text_atomic(self.path, text, folder_mode=PRIVATE_FOLDER)

    def forget(self, key: str) -> None:
        data = self._load()
        if data.pop(key, None) is not None:
            self._save(data)

    def _load(self) -> dict[str, dict[str, str]]:
        if self._data is not None:
            return self._data
        self._data = {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return self._data
        except ValueError as exc:
            self._set_aside(exc)
            return self._data
        except OSError as exc:
            log.warning("could not read %s: %s", self.path, exc)
            return self._data
        if not isinstance(raw, dict):
            self._set_aside(ValueError("not a JSON object"))
            return self._data
        for key, values in raw.items():
            if isinstance(values, dict):
                self._data[str(key)] = {str(k): v if isinstance(v, str) else str(v) for k, v in values.items()}
        return self._data

    def _set_aside(self, reason: Exception) -> None:
        aside = self.path.with_name(self.path.name + ".bad")
        try:
            os.replace(self.path, aside)
        except OSError:
            log.warning("could not read %s (%s) nor move it aside", self.path, reason)
            return
        log.warning("could not read %s (%s); moved it to %s and started afresh", self.path, reason, aside)
