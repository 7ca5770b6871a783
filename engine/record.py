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

The other methods `dataclass` compiles from source are made without compiling anything at definition: a frozen
class's `__setattr__` and `__delattr__` (and, with slots, `__getstate__`/`__setstate__`) are closures that do what
the generated ones do, and `__init__` is written and compiled — the same source `dataclass` would write — when
the class is first instantiated, so a class the first frame never makes costs nothing (half of the forty on the
start path). A class with `InitVar` or `ClassVar` annotations, or a dataclass among its bases, is made by
`dataclass` as before.
"""

from __future__ import annotations

import dataclasses
import reprlib
import sys
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


class _Factory:
    """The default of a parameter whose field has a default factory (`dataclass` shows it as `<factory>`)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _init_source(cls: type, frozen: bool, slots: bool) -> tuple[str, dict[str, Any]]:
    """The source of `cls.__init__` as `dataclass` writes it (Python 3.11's `_init_fn`), and its free names."""
    fields = dataclasses.fields(cls)
    self_name = "__dataclass_self__" if "self" in {f.name for f in fields} else "self"
    names: dict[str, Any] = {f"_type_{f.name}": f.type for f in fields}
    names.update(MISSING=dataclasses.MISSING, _HAS_DEFAULT_FACTORY=_FACTORY, __dataclass_builtins_object__=object)
    body: list[str] = []
    for f in fields:
        default = f"_dflt_{f.name}"
        if f.default_factory is not dataclasses.MISSING:
            names[default] = f.default_factory
            value = f"{default}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}" if f.init else f"{default}()"
        elif f.init:
            if f.default is not dataclasses.MISSING:
                names[default] = f.default
            value = f.name
        elif slots and f.default is not dataclasses.MISSING:
            names[default] = f.default
            value = default
        else:
            continue  # read from the class attribute holding the default
        body.append(
            f"__dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})"
            if frozen
            else f"{self_name}.{f.name}={value}"
        )
    if hasattr(cls, "__post_init__"):
        body.append(f"{self_name}.__post_init__()")

    def parameter(f: dataclasses.Field[Any]) -> str:
        if f.default is not dataclasses.MISSING:
            return f"{f.name}:_type_{f.name}=_dflt_{f.name}"
        if f.default_factory is not dataclasses.MISSING:
            return f"{f.name}:_type_{f.name}=_HAS_DEFAULT_FACTORY"
        return f"{f.name}:_type_{f.name}"

    parameters = [self_name] + [parameter(f) for f in fields if f.init and not f.kw_only]
    keywords = [parameter(f) for f in fields if f.init and f.kw_only]
    if keywords:
        parameters += ["*", *keywords]
    names["__dataclass_return_type__"] = None
    lines = "\n".join(f"  {line}" for line in body or ["pass"])
    source = (
        f"def __create_fn__({', '.join(names)}):\n"
        f" def __init__({','.join(parameters)})->__dataclass_return_type__:\n{lines}\n"
        " return __init__"
    )
    return source, names


def _lazy_init(cls: type, frozen: bool, slots: bool) -> Callable[..., None]:
    """An `__init__` that compiles the real one (`_init_source`), puts it on the class and runs it."""

    def __init__(self: object, *args: Any, **kwargs: Any) -> None:
        source, names = _init_source(cls, frozen, slots)
        module = sys.modules.get(cls.__module__)
        space: dict[str, Any] = {}
        code = compile(source, "<string>", "exec", dont_inherit=True)  # (not this module's postponed annotations)
        exec(code, module.__dict__ if module is not None else {}, space)  # (as `dataclass` does)
        init = space["__create_fn__"](**names)
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        setattr(cls, "__init__", init)  # noqa: B010 (a method set on the class)
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _frozen(owner: type) -> None:
    """What `dataclass(frozen=True)` adds, as closures: assigning or deleting a field raises, and with slots
    copying and pickling set the fields through `object.__setattr__`."""
    names = tuple(f.name for f in dataclasses.fields(owner))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        parent = super(owner, self)
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        parent.__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        parent = super(owner, self)
        if type(self) is owner or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        parent.__delattr__(name)

    methods: dict[str, Callable[..., Any]] = {"__setattr__": __setattr__, "__delattr__": __delattr__}
    if "__slots__" in owner.__dict__:

        def __getstate__(self: object) -> list[Any]:
            return [getattr(self, name) for name in names]

        def __setstate__(self: object, state: list[Any]) -> None:
            for name, value in zip(names, state, strict=False):
                object.__setattr__(self, name, value)

        methods.update(__getstate__=__getstate__, __setstate__=__setstate__)
    for name, method in methods.items():
        if name not in owner.__dict__:
            method.__qualname__ = f"{owner.__qualname__}.{name}"
            setattr(owner, name, method)
    getattr(owner, "__dataclass_params__").frozen = True  # noqa: B009 (for the checks of a frozen subclass)


def _signature_doc(cls: type) -> str:
    """The docstring `dataclass` gives a class that has none: its name and its `__init__`'s parameters."""
    import inspect  # (loaded by dataclasses already)

    kinds = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    parameters = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        default = f.default if f.default_factory is dataclasses.MISSING else _FACTORY
        default = inspect.Parameter.empty if default is dataclasses.MISSING else default
        parameters.append(inspect.Parameter(f.name, kinds[f.kw_only is True], default=default, annotation=f.type))
    parameters.sort(key=lambda parameter: parameter.kind)
    return cls.__name__ + str(inspect.Signature(parameters, return_annotation=None)).replace(" -> None", "")


def _plain(cls: type) -> bool:
    """Whether `record` can make the class's methods itself: no pseudo-fields, no dataclass among its bases."""
    import inspect  # (loaded by dataclasses already)

    annotations = inspect.get_annotations(cls)
    pseudo = any("ClassVar" in str(kind) or "InitVar" in str(kind) for kind in annotations.values())
    return not pseudo and not any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:])


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
        if not _plain(cls):
            made = dataclasses.dataclass(cls, frozen=frozen, slots=slots, kw_only=kw_only, repr=False, eq=False)
            return _finish(made, frozen)
        if frozen and ("__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__):
            name = "__setattr__" if "__setattr__" in cls.__dict__ else "__delattr__"
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        own_init, own_doc = "__init__" in cls.__dict__, cls.__doc__ is not None
        made = dataclasses.dataclass(cls, init=False, slots=slots, kw_only=kw_only, repr=False, eq=False)
        getattr(made, "__dataclass_params__").init = True  # noqa: B009 (as `dataclass` records it)
        if not own_init:
            setattr(made, "__init__", _lazy_init(made, frozen, slots))  # noqa: B010
            if not own_doc:
                made.__doc__ = _signature_doc(made)
        if frozen:
            _frozen(made)
        return _finish(made, frozen)

    return wrap if cls is None else wrap(cls)
