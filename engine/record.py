"""`record`: a dataclass whose `__repr__`, `__eq__` and `__hash__` are shared functions, not generated ones.

Python 3.11's `dataclass` writes each method it adds as source text and compiles it with `exec` when the class
is defined: about 0.6 M instructions a method, six for a frozen class. The app defines some forty dataclasses on
its way to the first frame, so those compilations were ~120 M instructions of a start-up that must stay within
1.5× a bare Textual app's (issue 23). `record` lets `dataclass` generate only what depends on the class's
fields in a way a shared function cannot copy cheaply (`__init__`, and a frozen class's `__setattr__` and
`__delattr__`), and gives the class shared versions of the rest that behave as the generated ones do:
`__repr__` is `Name(field=value, ...)` over the fields with `repr=True` (recursion shown as `...`), `__eq__`
compares the fields with `compare=True` of two instances of the same class (anything else: NotImplemented), and
`__hash__` follows `dataclass`'s rule for `eq=True`: a frozen class hashes its compared fields (or those with
`hash=True`), a mutable one is unhashable, and a `__hash__` the class defines itself is kept. Methods the class
defines itself are kept, as `dataclass` keeps them. The result is a real dataclass (`fields`, `replace`,
`asdict` work on it).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")

#: Per class: the names of the fields its `__repr__`, `__eq__` and `__hash__` read.
_REPR: dict[type, tuple[str, ...]] = {}
_COMPARE: dict[type, tuple[str, ...]] = {}
_HASH: dict[type, tuple[str, ...]] = {}


def _names(
    cls: type, table: dict[type, tuple[str, ...]], keep: Callable[[dataclasses.Field[Any]], bool]
) -> tuple[str, ...]:
    names = table.get(cls)
    if names is None:
        names = table[cls] = tuple(field.name for field in dataclasses.fields(cls) if keep(field))
    return names


@reprlib.recursive_repr()
def _repr(self: object) -> str:
    names = _names(type(self), _REPR, lambda field: field.repr)
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: object, other: object) -> object:
    if other.__class__ is not self.__class__:
        return NotImplemented
    names = _names(type(self), _COMPARE, lambda field: field.compare)
    return bool(tuple(getattr(self, name) for name in names) == tuple(getattr(other, name) for name in names))


def _hash(self: object) -> int:
    names = _names(type(self), _HASH, lambda field: field.compare if field.hash is None else field.hash)
    return hash(tuple(getattr(self, name) for name in names))


def _finish(cls: type[_T], frozen: bool) -> type[_T]:
    own = cls.__dict__
    if "__repr__" not in own:
        setattr(cls, "__repr__", _repr)  # noqa: B010 (a method set on the class: mypy rejects the assignment)
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if "__eq__" not in own:
        setattr(cls, "__eq__", _eq)  # noqa: B010
    if not explicit_hash:
        setattr(cls, "__hash__", _hash if frozen else None)  # noqa: B010
    return cls


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(*, frozen: bool = False, slots: bool = False, kw_only: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: type[_T] | None = None, /, *, frozen: bool = False, slots: bool = False, kw_only: bool = False
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """`dataclass(frozen=..., slots=..., kw_only=...)` with shared `__repr__`, `__eq__` and `__hash__`."""

    def wrap(cls: type[_T]) -> type[_T]:
        made = dataclasses.dataclass(cls, frozen=frozen, slots=slots, kw_only=kw_only, repr=False, eq=False)
        return _finish(made, frozen)

    return wrap if cls is None else wrap(cls)
