"""The run loop, the MCP parts and the UI act on a `Dialog` through its public surface only.

The run loop once drove the dialog through 30 uses of its private fields (`_emit`, `_capture`, `_running`,
`_told_no_tools`, the stream buffers): a change inside `Dialog` then broke a module that no test of `Dialog`
covers. Now the run's side is named (`claim_run`, `release_run`, `emit`, `emit_outside_run`, `note_no_tools`,
`abandon_stream`), and this test reads every source file for a private attribute read on anything called a
dialog.
"""

from __future__ import annotations

import ast
from pathlib import Path

from visindigo.engine import Center
from visindigo.engine.events import Event, RunFailed

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "engine", ROOT / "tui", ROOT / "src" / "visindigo"]
OWNER = ROOT / "engine" / "dialog.py"


def _names_a_dialog(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return "dialog" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "dialog" in node.attr.lower()
    return False


def private_dialog_uses(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        f"{path.relative_to(root)}:{node.lineno}: .{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and _names_a_dialog(node.value)
    ]


def test_no_module_but_dialog_py_touches_a_dialogs_private_fields() -> None:
    files = [path for folder in SOURCES for path in folder.rglob("*.py") if path.resolve() != OWNER.resolve()]
    assert len(files) > 100  # the walk found the sources
    assert [use for path in files for use in private_dialog_uses(path)] == []


def test_the_check_sees_a_private_use(tmp_path: Path) -> None:
    source = tmp_path / "offender.py"
    source.write_text("def f(dialog, self):\n    dialog._emit(1)\n    self.dialog._running = True\n")
    uses = private_dialog_uses(source, tmp_path)
    assert sorted(uses) == ["offender.py:2: ._emit", "offender.py:3: ._running"]


def test_a_claimed_dialog_refuses_a_second_run_without_telling_the_first() -> None:
    dialog = Center().create_dialog()
    heard: list[Event] = []
    dialog.subscribe(heard.append)
    captured = dialog.claim_run()
    assert captured == [] and dialog.is_running and dialog.claim_run() is None
    dialog.emit_outside_run(RunFailed("busy"))
    assert captured == [] and [type(e) for e in heard] == [RunFailed]  # the listeners hear it; the run does not
    dialog.title = "recorded"  # an event of the dialog while the run holds it: the run records it
    assert [type(e).__name__ for e in captured] == ["DialogChanged"]
    dialog.release_run()
    assert not dialog.is_running and dialog.claim_run() == []


def test_no_tools_is_noted_once_per_model_and_an_abandoned_stream_returns_what_arrived() -> None:
    dialog = Center().create_dialog()
    assert dialog.note_no_tools("p", "m") and not dialog.note_no_tools("p", "m") and dialog.note_no_tools("p", "n")
    dialog.begin_assistant_message()
    dialog.append_delta("half an ")
    dialog.append_reasoning("a thought")
    dialog.append_delta("answer")
    assert dialog.abandon_stream() == ("half an answer", "a thought")
    assert not dialog.is_streaming and dialog.streaming_content == "" and dialog.message_count == 0
