"""`record` behaves as `dataclass` does, with shared instead of generated `__repr__`, `__eq__` and `__hash__`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from visindigo.engine.record import record


def pair(**options: Any) -> tuple[type, type]:
    """The same class made by `dataclass` and by `record`."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {"a": "int", "b": "str", "c": "list[int]", "d": "float"},
            "b": "x",
            "c": field(default_factory=list, compare=False),
            "d": field(default=0.0, repr=False),
        }

    return dataclass(**options)(type("Thing", (), body())), record(**options)(type("Thing", (), body()))


@pytest.mark.parametrize("options", [{}, {"slots": True}, {"frozen": True}, {"frozen": True, "slots": True}])
def test_a_record_reads_compares_and_hashes_as_a_dataclass(options: dict[str, Any]) -> None:
    made, recorded = pair(**options)
    for cls in (made, recorded):
        assert dataclasses.is_dataclass(cls)
    one, two = made(1, "y", [1], 2.0), recorded(1, "y", [1], 2.0)
    assert repr(one) == repr(two) == "Thing(a=1, b='y', c=[1])"
    assert (recorded(1, "y", [1]) == recorded(1, "y", [9])) is True  # c is not compared
    assert (recorded(1, "y") == recorded(2, "y")) is False
    assert recorded(1).__eq__(made(1)) is NotImplemented and made(1).__eq__(recorded(1)) is NotImplemented
    assert recorded(1) != (1, "x")
    nan = float("nan")
    assert (made(1, d=nan) == made(1, d=nan)) == (recorded(1, d=nan) == recorded(1, d=nan))
    if options.get("frozen"):
        assert hash(recorded(1, "y")) == hash(made(1, "y")) == hash((1, "y", 0.0))
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(two, "a", 5)  # noqa: B010 (the assignment itself is what must fail)
    else:
        assert made.__hash__ is None and recorded.__hash__ is None
        with pytest.raises(TypeError):
            hash(two)
    assert dataclasses.replace(two, a=3).a == 3 and dataclasses.asdict(two) == dataclasses.asdict(one)


def test_a_record_keeps_the_methods_its_class_defines_and_reprs_recursion() -> None:
    @record(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __hash__(self) -> int:
            return 7

    @record
    class Node:
        child: Any = None

    assert repr(Named("n")) == "<n>" and hash(Named("n")) == 7
    node = Node()
    node.child = node
    assert repr(node).endswith(".Node(child=...)")


def test_a_subclass_compares_only_with_its_own_class() -> None:
    @record(frozen=True, slots=True)
    class Base:
        value: int

    class Plain(Base):
        __slots__ = ()

    assert Plain(1) == Plain(1) and Plain(1) != Base(1) and hash(Plain(1)) == hash(Base(1))
    assert repr(Plain(1)) == "test_a_subclass_compares_only_with_its_own_class.<locals>.Plain(value=1)"


def test_a_record_compiles_its_init_when_first_made_and_nothing_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defining a record compiles no source (a frozen class's guards are closures); its first instance compiles
    the `__init__` `dataclass` would write, which then behaves as the generated one does."""
    import builtins

    compiled: list[str] = []
    real_exec = builtins.exec

    def counting_exec(source: Any, *args: Any) -> None:
        compiled.append(source if isinstance(source, str) else "")
        real_exec(source, *args)

    monkeypatch.setattr(builtins, "exec", counting_exec)

    @record(frozen=True, slots=True)
    class Event:
        name: str
        tags: list[str] = field(default_factory=list)
        hidden: int = field(default=3, init=False)
        flag: bool = field(default=False, kw_only=True)

    assert compiled == []  # (`dataclass` compiles three: __init__, __setattr__, __delattr__)
    event = Event("a", flag=True)
    assert len(compiled) == 1 and (event.name, event.tags, event.hidden, event.flag) == ("a", [], 3, True)
    Event("b")
    assert len(compiled) == 1
    assert Event.__init__.__qualname__.endswith("Event.__init__")
    assert Event.__doc__ == "Event(name: 'str', tags: 'list[str]' = <factory>, *, flag: 'bool' = False)"
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'name'"):
        Event()
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'name'"):
        setattr(event, "name", "c")  # noqa: B010
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'tags'"):
        delattr(event, "tags")
    assert Event.__dataclass_params__.frozen and Event.__dataclass_params__.init  # type: ignore[attr-defined]


def test_a_frozen_record_copies_pickles_and_runs_its_post_init_as_a_dataclass() -> None:
    import copy
    import inspect

    made, recorded = pair(frozen=True, slots=True)
    one = recorded(1, "y", [2], 0.5)
    assert copy.copy(one) == one and copy.deepcopy(one) == one
    restored = recorded.__new__(recorded)  # what pickling does (the class is local here, so not picklable)
    restored.__setstate__(one.__getstate__())
    assert restored == one and one.__getstate__() == made(1, "y", [2], 0.5).__getstate__()
    assert str(inspect.signature(recorded)) == str(inspect.signature(made))
    assert recorded.__doc__ == made.__doc__

    seen: list[int] = []

    @record
    class Checked:
        value: int

        def __post_init__(self) -> None:
            seen.append(self.value)

    Checked(4)
    assert seen == [4]
