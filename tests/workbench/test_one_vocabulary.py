"""One event vocabulary (issue 23 item 5): the workbench forwards the engine's events as they are, adding only the
dialog and the round; the run owns the streamed text and the UI reads it there; only the run's side writes a
`RunState` (no flag that the producer sets and a consumer clears)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from visindigo.engine import Event, Function, StreamBegan, StreamDelta, StreamReasoning
from visindigo.engine import events as engine_events
from visindigo.engine.approval import Approval
from visindigo.engine.providers import FinishPart, ReasoningPart, TextPart, ToolCallPart, UsagePart
from visindigo.tui.workbench import RunState
from visindigo.tui.workbench import events as news

from .conftest import Bench

ROOT = Path(__file__).resolve().parents[2]

#: What the engine says about a run that the workbench does not forward as such: the deltas (their text is in
#: the run's `StreamText`, `TextArrived` says it grew) and the run's end (`RunEnded` sums it up).
NOT_FORWARDED = ("StreamDelta", "StreamReasoning", "RunFinished", "RunFailed", "RunCancelled", "ContextExceeded")


class Wipe(Function):
    id = "wipe"
    name = "wipe"
    description = "wipes"
    parameter_schema: dict[str, Any] = {"type": "object", "properties": {}}
    requires_approval = True

    def invoke(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"wiped": True}


def _classes(module: ModuleType) -> dict[str, type]:
    return {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__
    }


def test_the_workbench_names_no_event_the_engine_names() -> None:
    """Its own events are only what the engine has no word for (a run as a whole, a send, text waiting, the
    user's working state); an engine event is never re-declared under the same or another name."""
    own = _classes(news)
    engine = _classes(engine_events)
    assert set(own) & set(engine) == set()
    assert set(own) == {
        "RunEvent", "RunStarted", "EngineEvent", "TextArrived", "RunEnded", "Sent",
        "ShownChanged", "TreeChanged", "AttachmentsChanged",
    }  # fmt: skip
    # none of them carries what an engine event carries (a synonym by another name)
    engine_shapes = {tuple(f.name for f in dataclasses.fields(cls)) for cls in engine.values()}
    for name, cls in own.items():
        fields = tuple(f.name for f in dataclasses.fields(cls) if f.name != "dialog_id")
        assert not fields or fields not in engine_shapes or name == "EngineEvent", name


async def test_a_run_reaches_the_listeners_as_the_engines_own_events_in_the_engines_order() -> None:
    turn_one = [ReasoningPart("plan"), ToolCallPart("c1", "wipe", "{}"), UsagePart(7, 1), FinishPart("tool_calls")]
    turn_two = [TextPart("do"), TextPart("ne"), UsagePart(9, 2), FinishPart("stop")]
    bench = Bench([turn_one, turn_two])
    bench.center.add_function(Wipe())
    bench.host.approvals = [Approval.ALLOW_ONCE]
    dialog = bench.workbench.shown
    emitted: list[Event] = []
    dialog.subscribe(emitted.append)
    bench.workbench.send("wipe it")
    await bench.host.settle()

    forwarded = [e for e in bench.events if isinstance(e, news.EngineEvent)]
    from_run = [e for e in forwarded if e.round > 0]
    run_began = next(n for n, e in enumerate(emitted) if isinstance(e, StreamBegan))
    expected = [e for e in emitted[run_began:] if type(e).__name__ not in NOT_FORWARDED]
    # the same objects the engine emitted in the run, in its order: nothing renamed, nothing rebuilt
    assert [id(e.event) for e in from_run] == [id(e) for e in expected]
    assert {type(e.event).__name__ for e in from_run} >= {
        "StreamBegan", "ToolCallStarted", "ToolCallFinished", "UsageReported", "MessageAppended", "StreamEnded"
    }  # fmt: skip
    # what the workbench adds: the dialog, and the round each came in
    assert {e.dialog_id for e in forwarded} == {dialog.id}
    rounds = [e.round for e in from_run if isinstance(e.event, StreamBegan)]
    assert rounds == [1, 2]
    # the user's question is the engine's MessageAppended too, as the dialog emitted it, outside a run (round 0)
    question = emitted[run_began - 1]
    assert forwarded[0].event == question == engine_events.MessageAppended(0) and forwarded[0].round == 0
    kinds = bench.kinds(dialog.id)
    assert kinds.count("TextArrived") == sum(isinstance(e, StreamDelta | StreamReasoning) for e in emitted)


async def test_the_run_owns_the_streamed_text_and_the_run_state_holds_no_copy() -> None:
    bench = Bench([[ReasoningPart("think"), TextPart("Hel"), TextPart("lo"), FinishPart("stop")]])
    dialog = bench.workbench.shown
    began: list[StreamBegan] = []
    dialog.subscribe(lambda event: began.append(event) if isinstance(event, StreamBegan) else None)
    bench.workbench.send("hi")
    await bench.host.settle()
    run = bench.workbench.runs.get(dialog.id)
    assert run is not None and len(began) == 1
    assert run.text is began[0].text  # one buffer: the one the run appended to
    assert (run.text.answer, run.text.reasoning) == (["Hel", "lo"], ["think"])
    assert dialog.streaming_content == ""  # the dialog's next round starts from a new one; this one keeps its text
    # RunState keeps figures about the text, never the text again
    copies = [f.name for f in dataclasses.fields(RunState) if "list[str]" in str(f.type) and f.name != "notes"]
    assert copies == []


#: The modules that write a `RunState`: the driver, and the workbench as it starts or cancels a run.
RUN_SIDE = {"tui/workbench/driving.py", "tui/workbench/runs.py", "tui/workbench/workbench.py"}


MUTATORS = {"append", "extend", "insert", "clear", "pop"}


def run_state_writes(source: str) -> list[str]:
    """Assignments to a `RunState` field through a name (`run.x = …`, `state.x += …`, `run.x.append(…)`)."""
    fields = {f.name for f in dataclasses.fields(RunState)}
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        for target in targets:
            while isinstance(target, ast.Attribute) and not isinstance(target.value, ast.Name):
                target = target.value
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
                continue
            if target.attr in fields and target.value.id != "self":
                found.append(f"{target.value.id}.{target.attr} (line {target.lineno})")
    return found


def test_only_the_run_side_writes_a_run_state() -> None:
    readers = [*sorted((ROOT / "tui").rglob("*.py")), *sorted((ROOT / "src" / "visindigo").rglob("*.py"))]
    writes = {
        str(path.relative_to(ROOT)): found
        for path in readers
        if str(path.relative_to(ROOT)) not in RUN_SIDE and (found := run_state_writes(path.read_text("utf-8")))
    }
    assert writes == {}
    # the check sees a consumer clearing a flag the producer sets, as the panes did before
    assert run_state_writes("def frame(run):\n    run.streaming = False\n    run.text.answer.append('x')\n") == [
        "run.streaming (line 2)",
        "run.text (line 3)",
    ]


def test_a_run_event_without_fields_of_its_own_behaves_as_a_frozen_dataclass_of_its_own() -> None:
    """RunStarted, TextArrived and Sent reuse RunEvent's generated methods (start-up: no six compiles each); they
    still read, compare, hash, refuse changes and match as the frozen slotted dataclasses they were."""
    import pickle

    for cls in (news.RunStarted, news.TextArrived, news.Sent):
        event = cls("d1")
        assert repr(event) == f"{cls.__name__}(dialog_id='d1')"
        assert event == cls("d1") and hash(event) == hash(cls("d1")) and event != cls("d2")
        others = [other for other in (news.RunEvent, news.RunStarted, news.TextArrived, news.Sent) if other is not cls]
        assert all(event != other("d1") for other in others)
        with pytest.raises(dataclasses.FrozenInstanceError):
            event.dialog_id = "d2"  # type: ignore[misc]
        with pytest.raises((AttributeError, TypeError)):
            event.other = 1  # type: ignore[attr-defined]
        assert not hasattr(event, "__dict__")
        assert [field.name for field in dataclasses.fields(event)] == ["dialog_id"]
        assert dataclasses.replace(event, dialog_id="d3") == cls("d3")
        assert pickle.loads(pickle.dumps(event)) == event
        match event:
            case cls(dialog_id):  # type: ignore[misc]
                assert dialog_id == "d1"
