"""Package names loaded on first use (PEP 562), shared by the packages whose `__init__` must stay cheap.

`visindigo ask` sends its question before asyncio and httpx are loaded, and the app's first frame comes before
most of the engine is needed; a package that imported its modules eagerly to re-export their names would undo
both. Each such package keeps a table of name → module and sets its module-level `__getattr__` from here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["names_on_first_use"]


def names_on_first_use(package: str, modules: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package` that imports `package.<modules[name]>` and returns its `name`."""

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{module}"), name)

    return __getattr__
