"""The TUI's shape (issue 23 items 1 and 4), read from the sources: small modules in small folders, an app that
only composes, and no class using members that another class declares for it.

Borrowed members are what mixins did here before: a class whose methods read `self.center` or `self.pane`
that only the class mixing it in has, made to type-check with `self: Any` or with the other class's members
declared under `if TYPE_CHECKING:` in its body. A part now either owns what it uses, or is handed it (a
protocol, or an object in its constructor).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TUI = ROOT / "tui"

LINE_LIMIT = 400
FOLDER_LIMIT = 12
TOP_LIMIT = 3
#: Modules allowed over the limit for now (none): a listed module that is small enough fails.
PENDING: set[str] = set()


def modules(folder: Path) -> list[Path]:
    """The modules of a folder, its `__init__` aside (a package's, not a module of its own)."""
    return sorted(path for path in folder.glob("*.py") if path.name != "__init__.py")


def sources() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def test_no_tui_module_is_over_the_line_limit() -> None:
    found = {str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines()) for path in sources()}
    assert len(found) > 80
    over = {path: lines for path, lines in found.items() if lines > LINE_LIMIT}
    assert set(over) - PENDING == set(), over
    assert set(over) >= PENDING, f"no longer over {LINE_LIMIT} lines, take them off PENDING: {PENDING - set(over)}"


def test_each_tui_folder_holds_at_most_twelve_modules_and_the_top_three() -> None:
    folders = sorted({path.parent for path in sources()})
    assert len(folders) >= 10
    crowded = {str(f.relative_to(ROOT)): len(modules(f)) for f in folders if len(modules(f)) > FOLDER_LIMIT}
    assert crowded == {}
    top = [path.name for path in modules(TUI)]
    assert "app.py" in top and len(top) <= TOP_LIMIT, top


def _classes_of(tree: ast.Module) -> list[ast.ClassDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]


def borrowed_members(source: str) -> list[str]:
    """Where a class borrows another's members: `self: Any` (or `self` typed as anything) on a method, or an
    `if TYPE_CHECKING:` block in a class body declaring members."""
    tree = ast.parse(source)
    found = []
    for cls in _classes_of(tree):
        for node in cls.body:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                found.append(f"{cls.name}: members declared under TYPE_CHECKING (line {node.lineno})")
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = node.args.posonlyargs[:1] or node.args.args[:1]
                if first and first[0].arg == "self" and first[0].annotation is not None:
                    found.append(f"{cls.name}.{node.name}: self typed as {ast.unparse(first[0].annotation)}")
    return found


def test_no_class_borrows_members_another_declares_for_it() -> None:
    found = {
        str(path.relative_to(ROOT)): borrowed
        for path in sources()
        if (borrowed := borrowed_members(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_finder_sees_both_ways_of_borrowing() -> None:
    source = (
        "from typing import TYPE_CHECKING, Any\n"
        "class Launchers:\n"
        "    if TYPE_CHECKING:\n"
        "        center: Any\n"
        "    def action_go(self: Any) -> None:\n"
        "        self.center.go()\n"
        "class Owner:\n"
        "    def __init__(self) -> None:\n"
        "        self.center = 1\n"
    )
    assert borrowed_members(source) == [
        "Launchers: members declared under TYPE_CHECKING (line 3)",
        "Launchers.action_go: self typed as Any",
    ]


def test_the_app_has_at_most_two_bases_and_stays_small() -> None:
    path = TUI / "app.py"
    source = path.read_text(encoding="utf-8")
    [app] = [cls for cls in _classes_of(ast.parse(source)) if cls.name == "VisindigoApp"]
    assert len(app.bases) <= 2, [ast.unparse(base) for base in app.bases]
    assert len(source.splitlines()) <= 250


#: `type: ignore` outside the seam, each with its reason (none: tool_block's styled Collapsible title goes through
#: `tui/platform/typing_gaps.py`, docs/upstream/collapsible-title-type.md).
IGNORES_PENDING: set[str] = set()


def test_type_ignores_are_only_in_the_seam() -> None:
    """`.ci/typecheck` runs `mypy --strict` over the TUI; what it cannot type is Textual's privates, in the seam."""
    found = {
        str(path.relative_to(ROOT))
        for path in sources()
        if "# type: ignore" in path.read_text(encoding="utf-8") and not path.is_relative_to(TUI / "platform")
    }
    assert found - IGNORES_PENDING == set()
    assert found >= IGNORES_PENDING, f"no ignore left, take them off IGNORES_PENDING: {IGNORES_PENDING - found}"


def private_writes(source: str) -> list[str]:
    """Where code writes another object's private field: `view._height = …` (or `+=`), anything but `self`/`cls`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if not isinstance(target, ast.Attribute) or not target.attr.startswith("_") or target.attr.endswith("__"):
                continue
            if not (isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")):
                found.append(f"{ast.unparse(target)} (line {target.lineno})")
    return found


def test_no_class_writes_another_objects_private_fields() -> None:
    """Item 4: `MessageList` wrote `MessageView`'s private fields; a part now asks the owner through its methods.
    Only the seam writes private fields of other objects (Textual's, each recorded in `compat`)."""
    found = {
        str(path.relative_to(ROOT)): writes
        for path in sources()
        if not path.is_relative_to(TUI / "platform") and (writes := private_writes(path.read_text(encoding="utf-8")))
    }
    assert found == {}
    assert private_writes("class A:\n    def f(self, view):\n        self._x = 1\n        view._height += 2\n") == [
        "view._height (line 4)"
    ]
