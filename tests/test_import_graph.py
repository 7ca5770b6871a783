"""The import graphs of the engine and the TUI have no cycles.

Built from the sources with `ast`: every import counts — at the top of a module, under `TYPE_CHECKING`, and
inside functions (the engine and the TUI import much lazily, for start-up speed, and a lazy import is still a
dependency). Where a part must reach one above it, it goes through a protocol defined below both: a dialog asks
its Center through `engine.lookup.DialogHost`, an adapter reads its provider through `providers.base.Endpoint`,
the store's tracker writes through `DialogWrites`, the config is applied to a `ConfigTarget`; the main screen
receives the app's services (readiness included) as the `AppServices` protocol.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"visindigo.engine": ROOT / "engine", "visindigo.tui": ROOT / "tui", "visindigo": ROOT / "src" / "visindigo"}


def modules_of(packages: Mapping[str, Path]) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package), for every .py file under the packages' folders."""
    found: dict[str, tuple[Path, bool]] = {}
    for package, folder in packages.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join([package, *parts])] = (path, is_package)
    return found


def import_graph(modules: Mapping[str, tuple[Path, bool]]) -> dict[str, set[str]]:
    """Module -> the modules of `modules` it imports anywhere in its source."""
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names if alias.name in modules)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule in modules:
                        targets.add(submodule)
                    elif source in modules:
                        targets.add(source)
        targets.discard(name)
        graph[name] = targets
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def _describe(graph: Mapping[str, set[str]], component: list[str]) -> str:
    members = set(component)
    return "\n".join(f"  {m} -> {sorted(graph[m] & members)}" for m in component)


GRAPH = import_graph(modules_of(PACKAGES))


def test_the_graph_is_read_from_the_real_sources() -> None:
    assert len([m for m in GRAPH if m.startswith("visindigo.engine.")]) > 60
    assert len([m for m in GRAPH if m.startswith("visindigo.tui.")]) > 40
    assert "visindigo.engine.dialog" in GRAPH["visindigo.engine.center"]  # a top-level import
    assert "visindigo.engine.run_loop" in GRAPH["visindigo.engine.center"]  # one inside a function
    assert "visindigo.engine.providers.registry" in GRAPH["visindigo.engine.provider"]  # inside a property
    assert "visindigo.engine.lookup" in GRAPH["visindigo.engine.dialog"]  # under TYPE_CHECKING
    assert "visindigo.tui.main.screen" in GRAPH["visindigo.tui.app"]


def test_the_cycle_finder_finds_cycles_through_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from . import b\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from .c import x\n", encoding="utf-8")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import y\n", encoding="utf-8"
    )
    (package / "d.py").write_text("from pkg import a\n", encoding="utf-8")
    graph = import_graph(modules_of({"pkg": package}))
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_engine_has_no_import_cycle() -> None:
    found = [c for c in cycles(GRAPH) if any(m.startswith("visindigo.engine") for m in c)]
    assert found == [], "\n\n".join(_describe(GRAPH, c) for c in found)


def test_the_tui_has_no_import_cycle() -> None:
    found = [c for c in cycles(GRAPH) if any(m.startswith("visindigo.tui") for m in c)]
    assert found == [], "\n\n".join(_describe(GRAPH, c) for c in found)


def test_the_command_line_has_no_import_cycle() -> None:
    assert cycles(GRAPH) == []


def test_a_dialog_reaches_its_center_only_through_the_protocol_below_both() -> None:
    dialog = GRAPH["visindigo.engine.dialog"]
    assert "visindigo.engine.center" not in dialog and "visindigo.engine.run_loop" not in dialog
    assert "visindigo.engine.lookup" in dialog
    assert "visindigo.engine.dialog" in GRAPH["visindigo.engine.center"]
    assert not GRAPH["visindigo.engine.lookup"] & {"visindigo.engine.dialog", "visindigo.engine.center"}


def test_no_tui_module_imports_the_app() -> None:
    app = "visindigo.tui.app"
    importers = sorted(m for m, targets in GRAPH.items() if app in targets)
    assert all(not m.startswith("visindigo.tui.") for m in importers), importers


#: The TUI's feature packages, and what each may import besides itself and the engine: the parts below every
#: feature. A feature reaches another through a protocol the app fills (`main.launchers.FeatureScreens`, filled
#: from `tui/features.py`), never by importing it.
FEATURES = ("main", "compare", "mcp", "templates", "setup", "start")
BELOW_FEATURES = ("common", "workbench", "platform", "chat")


def feature_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Each import of a feature package's module that reaches a TUI package it may not (another feature, the
    app, `tui.features`), as "module -> target"."""
    found = []
    for module, targets in sorted(graph.items()):
        parts = module.split(".")
        if parts[:2] != ["visindigo", "tui"] or len(parts) < 4 or parts[2] not in FEATURES:
            continue
        for target in sorted(targets):
            reached = target.split(".")
            if reached[:2] != ["visindigo", "tui"] or reached[2:3] == parts[2:3]:
                continue
            if len(reached) < 3 or reached[2] not in BELOW_FEATURES:
                found.append(f"{module} -> {target}")
    return found


def test_feature_packages_import_only_the_parts_below_them_and_the_engine() -> None:
    assert feature_imports(GRAPH) == []
    # the rule is read from the real sources: the features are there and import the parts below them
    assert "visindigo.tui.chat.message_pane" in GRAPH["visindigo.tui.main.workspace"]
    assert "visindigo.tui.setup.model_picker" in GRAPH["visindigo.tui.features"]


def test_the_feature_rule_finds_a_feature_importing_another_lazily_or_for_types(tmp_path: Path) -> None:
    tui = tmp_path / "tui"
    for package in ("main", "setup", "common", "compare"):
        (tui / package).mkdir(parents=True)
        (tui / package / "__init__.py").write_text("", encoding="utf-8")
    (tui / "__init__.py").write_text("", encoding="utf-8")
    (tui / "features.py").write_text("from visindigo.tui.setup import picker\n", encoding="utf-8")
    (tui / "common" / "help.py").write_text("", encoding="utf-8")
    (tui / "setup" / "picker.py").write_text("from visindigo.tui.common import help\n", encoding="utf-8")
    (tui / "compare" / "screen.py").write_text("", encoding="utf-8")
    (tui / "main" / "modals.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from visindigo.tui.compare.screen import S\n"
        "def pick():\n    from visindigo.tui.setup.picker import Picker\n",
        encoding="utf-8",
    )
    graph = import_graph(modules_of({"visindigo.tui": tui}))
    assert feature_imports(graph) == [
        "visindigo.tui.main.modals -> visindigo.tui.compare.screen",
        "visindigo.tui.main.modals -> visindigo.tui.setup.picker",
    ]
